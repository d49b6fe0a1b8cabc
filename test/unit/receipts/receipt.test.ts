import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { afterAll, describe, expect, it } from 'vitest';
import { signEd25519 } from '../../../src/tlog/checkpoint.ts';
import { createLedger } from '../../../src/ledger/ledger.ts';
import {
  buildReceipt,
  buildUnsignedReceipt,
  canonicalReceipt,
  decodeReceiptHeader,
  RECEIPT_FIELD_ORDER,
  receiptHeaderValue,
  receiptSha256,
  signCanonical,
  type Receipt,
  type ReceiptFields,
} from '../../../src/receipts/receipt.ts';
import { createReceiptIssuer } from '../../../src/receipts/receipt-issuer.ts';
import { verifyReceipt } from '../../../src/receipts/receipt-verify.ts';

const root = mkdtempSync(join(tmpdir(), 'receipt-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const keys = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(9));
const publicKey = bs58.encode(keys.publicKey);
const signer = { publicKey, sign: (m: Uint8Array) => Promise.resolve(signEd25519(keys.secretKey, m)), verifyUrl: 'https://x.example/trust/verify' };
const sha = (b: string | Uint8Array) => createHash('sha256').update(b).digest('hex');
const MINT = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const BODY = JSON.stringify({ mint: MINT, smri: 71, smriBand: 'low-risk' });
const fields: ReceiptFields = {
  service: 'solana-x402-intel',
  serviceVersion: '0.1.9',
  originalUrl: `/v1/smri?mint=${MINT}`,
  endpoint: '/v1/smri',
  priceUsdcUnits: 10000,
  network: 'eip155:8453',
  body: BODY,
  ledgerChainHead: sha('head'),
  ledgerIndex: 7,
  generatedAt: new Date('2025-06-01T12:00:00.123Z'),
};

/** An ed25519 verification: message, detached signature, public key. */
type Ed25519Verify = (message: Uint8Array, signature: Uint8Array, key: Uint8Array) => boolean;
const tweetnaclVerify: Ed25519Verify = (message, signature, key) => nacl.sign.detached.verify(message, signature, key);
/**
 * A second implementation, neither tweetnacl nor the service's node:crypto signer, for the
 * rejection sweeps: about 5 times less CPU a verification than tweetnacl (~90 a second), and the
 * sweeps make about 600 of them.
 */
const nobleVerify: Ed25519Verify = (message, signature, key) => {
  try {
    return ed25519.verify(signature, message, key);
  } catch {
    return false;
  }
};

/** An independent verifier: only base64, JSON, an ed25519 library and bs58, as a client would write it. */
function independentlyValid(headerJson: string, body: Uint8Array, published: string, verify: Ed25519Verify = tweetnaclVerify): boolean {
  let r: Receipt;
  try {
    r = JSON.parse(headerJson) as Receipt;
  } catch {
    return false;
  }
  const { signature, ...rest } = r;
  // Cheap checks first: tweetnacl verifies ~90 signatures a second.
  if (signature?.signedBy !== published || signature.scheme !== 'ed25519-detached(utf8(canonicalReceipt))') return false;
  if (sha(body) !== r.responseSha256) return false;
  let sig: Uint8Array;
  let key: Uint8Array;
  try {
    sig = bs58.decode(signature.signatureBase58);
    key = bs58.decode(signature.signedBy);
  } catch {
    return false;
  }
  if (sig.length !== 64 || key.length !== 32) return false;
  return verify(new TextEncoder().encode(JSON.stringify(rest)), sig, key);
}

describe('receipt canonical form', () => {
  it('has every contract field in the contract order, then ledgerIndex, then signature', async () => {
    const r = await buildReceipt(fields, signer);
    expect(Object.keys(r)).toEqual([...RECEIPT_FIELD_ORDER, 'signature']);
    expect(Object.keys(r.signature)).toEqual(['scheme', 'signatureBase58', 'signedBy', 'verify']);
    expect(r).toMatchObject({
      schema: 'solana-x402-intel.intelligence-receipt.v1',
      service: 'solana-x402-intel',
      resource: `/v1/smri?mint=${MINT}`,
      endpoint: '/v1/smri',
      priceUsd: '$0.01',
      priceUsdcUnits: 10000,
      network: 'eip155:8453',
      serviceVersion: '0.1.9',
      requestSha256: sha(`GET /v1/smri?mint=${MINT}`),
      responseSha256: sha(BODY),
      responseBytes: Buffer.byteLength(BODY),
      ledgerChainHead: sha('head'),
      generatedAtUtc: '2025-06-01T12:00:00.123Z',
      ledgerIndex: 7,
      signature: { scheme: 'ed25519-detached(utf8(canonicalReceipt))', signedBy: publicKey, verify: 'https://x.example/trust/verify' },
    });
    const canonical = canonicalReceipt(r);
    expect(canonical.startsWith('{"schema":"solana-x402-intel.intelligence-receipt.v1","service":"solana-x402-intel","resource":')).toBe(true);
    expect(canonical.endsWith(`"generatedAtUtc":"2025-06-01T12:00:00.123Z","ledgerIndex":7}`)).toBe(true);
    expect(canonical).not.toContain('signature');
    expect(receiptSha256(r)).toBe(sha(canonical));
  });

  it('renders priceUsd from the units and hashes a multi-byte body by its UTF-8 bytes', async () => {
    const body = Buffer.from('{"name":"Bönk ✓"}', 'utf8');
    const r = await buildReceipt({ ...fields, priceUsdcUnits: 100000, body }, signer);
    expect(r.priceUsd).toBe('$0.10');
    expect(r.responseBytes).toBe(body.length);
    expect(r.responseSha256).toBe(sha(body));
  });

  it('header value is base64 of the receipt JSON and decodes back', async () => {
    const r = await buildReceipt(fields, signer);
    const header = receiptHeaderValue(r);
    expect(Buffer.from(header, 'base64').toString('utf8')).toBe(JSON.stringify(r));
    expect(decodeReceiptHeader(header)).toEqual({ ok: true, receipt: r });
    expect(decodeReceiptHeader('not base64!').ok).toBe(false);
    expect(decodeReceiptHeader(Buffer.from('[1]').toString('base64')).ok).toBe(false);
  });

  it('signs from one serialization: the spliced header is byte for byte the receipt JSON, quotes and non-ASCII included', async () => {
    const odd = { ...fields, originalUrl: '/v1/smri?mint=\u00e9"\\x\u2028y', serviceVersion: '0.1.9-"é"' };
    const unsigned = buildUnsignedReceipt(odd);
    const { receipt, headerValue } = await signCanonical(unsigned, canonicalReceipt(unsigned), signer);
    expect(receipt).toEqual(await buildReceipt(odd, signer));
    expect(headerValue).toBe(receiptHeaderValue(receipt));
    expect(Buffer.from(headerValue, 'base64').toString('utf8')).toBe(JSON.stringify(receipt));
  });
});

describe('receipt verification', () => {
  it('verifies with tweetnacl + bs58 alone, and fails after any byte of the signed receipt or the body changes', async () => {
    const r = await buildReceipt(fields, signer);
    const json = Buffer.from(receiptHeaderValue(r), 'base64').toString('utf8');
    const body = Buffer.from(BODY);
    expect(independentlyValid(json, body, publicKey)).toBe(true);
    // signature.verify is a URL outside the signed bytes (docs/contract.md#receipts); every other byte is covered.
    const unsignedTail = json.indexOf(',"verify":');
    for (let i = 0; i < json.length; i++) {
      if (i >= unsignedTail && i < json.length - 2) continue;
      const mutated = json.slice(0, i) + String.fromCharCode(json.charCodeAt(i) ^ 1) + json.slice(i + 1);
      expect(independentlyValid(mutated, body, publicKey, nobleVerify), `byte ${i} of the receipt`).toBe(false);
    }
    const sigStart = json.indexOf('"signatureBase58":"') + 19;
    const signedByEnd = json.indexOf('","verify"');
    for (let i = sigStart; i < signedByEnd; i++) {
      if (json[i] === '"' || json[i] === ',' || json[i] === ':') continue;
      const other = json[i] === '2' ? '3' : '2';
      expect(independentlyValid(json.slice(0, i) + other + json.slice(i + 1), body, publicKey, nobleVerify), `signature byte ${i}`).toBe(false);
    }
    for (let i = 0; i < body.length; i++) {
      const b = Buffer.from(body);
      b[i]! ^= 0x01;
      expect(independentlyValid(json, b, publicKey, nobleVerify), `body byte ${i}`).toBe(false);
      expect(verifyReceipt(r, { publicKey, body: b }).checks.responseSha256.status).toBe('fail');
    }
    expect(independentlyValid(json, Buffer.concat([body, Buffer.from(' ')]), publicKey)).toBe(false);
    // Both libraries accept the untouched receipt, so a sweep's rejection is the change's doing.
    expect(independentlyValid(json, body, publicKey, nobleVerify)).toBe(true);
    // About 600 verifications: a budget for a fixed amount of work under load, not a race.
  }, 120_000);

  it('answers each check as data', async () => {
    const r = await buildReceipt(fields, signer);
    const good = verifyReceipt(r, { publicKey, body: BODY });
    expect(good.valid).toBe(true);
    expect(Object.fromEntries(Object.entries(good.checks).map(([k, c]) => [k, c.status]))).toEqual({
      fields: 'pass',
      signature: 'pass',
      signedBy: 'pass',
      responseSha256: 'pass',
      ledgerInclusion: 'skipped',
    });
    expect(verifyReceipt(r, { publicKey, bodySha256: sha(BODY).toUpperCase() }).checks.responseSha256.status).toBe('pass');
    expect(verifyReceipt(r, { publicKey }).checks.responseSha256.status).toBe('skipped');

    const other = bs58.encode(nacl.sign.keyPair().publicKey);
    const wrongKey = verifyReceipt(r, { publicKey: other });
    expect([wrongKey.valid, wrongKey.checks.signature.status, wrongKey.checks.signedBy.status]).toEqual([false, 'pass', 'fail']);
    const forged = verifyReceipt({ ...r, priceUsdcUnits: 1 }, { publicKey });
    expect([forged.valid, forged.checks.signature.status]).toEqual([false, 'fail']);
    const { ledgerIndex, ...others } = r;
    const reordered = { ledgerIndex, ...others } as Receipt;
    expect(verifyReceipt(reordered, { publicKey }).checks.fields.status).toBe('fail');
    const junk = verifyReceipt({ signature: { scheme: 1 } } as unknown as Receipt, { publicKey });
    expect(junk.valid).toBe(false);
    expect(verifyReceipt(null as unknown as Receipt, { publicKey }).valid).toBe(false);
  });

  it('issues receipts bound to their ledger slot, and checks inclusion against the ledger', async () => {
    const ledger = await createLedger({ dir: join(root, 'ledger'), nodeStore: 'memory' });
    await ledger.append({ kind: 'audit', event: 'kill-switch.activated', reason: 'test' });
    const issuer = createReceiptIssuer({
      ledger,
      service: 'solana-x402-intel',
      serviceVersion: '0.1.9',
      baseUrl: () => 'http://h',
      publicKey,
      sign: signer.sign,
    });
    const answers = Array.from({ length: 5 }, (_, i) => ({
      originalUrl: `/v1/epoch?rate=both&i=${i}`,
      endpoint: '/v1/epoch',
      priceUsdcUnits: 1000,
      network: 'eip155:8453',
      body: `{"i":${i}}`,
    }));
    const issued = await Promise.all(answers.map((a) => issuer.issue(a)));
    for (const [i, { receipt, headerValue, ledger: at }] of issued.entries()) {
      const entry = ledger.entry(at.index)!;
      expect(entry).toMatchObject({ kind: 'payment', endpoint: '/v1/epoch', receiptSha256: receiptSha256(receipt) });
      expect([receipt.ledgerIndex, receipt.ledgerChainHead]).toEqual([at.index, entry.prevHash]);
      expect(receipt.signature.verify).toBe('http://h/trust/verify');
      expect(independentlyValid(Buffer.from(headerValue, 'base64').toString('utf8'), Buffer.from(answers[i]!.body), publicKey)).toBe(true);
      const v = verifyReceipt(receipt, { publicKey, body: answers[i]!.body, ledger });
      expect([v.valid, v.checks.ledgerInclusion.status]).toEqual([true, 'pass']);
    }
    const moved = verifyReceipt({ ...issued[0]!.receipt, ledgerIndex: 0 }, { publicKey, ledger });
    expect(moved.checks.ledgerInclusion.status).toBe('fail');
    await ledger.close();
    await expect(issuer.issue(answers[0]!)).rejects.toThrow(/closed/);
  });
});

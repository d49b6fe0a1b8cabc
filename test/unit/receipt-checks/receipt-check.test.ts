/**
 * The client-side checks (src/receipt-checks/receipt-check.ts) against the service's own trust side: a
 * real ledger, real receipts and checkpoints signed with a real identity. They must accept what
 * the service issues and refuse every kind of tampering, computing everything themselves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReceipt, verifyProofAt, verifyReceipt, type TrustFetch } from '../../../src/receipt-checks/receipt-check.ts';
import { createCheckpoint, signEd25519 } from '../../../src/tlog/checkpoint.ts';
import { loadOrCreateIdentity, type Identity } from '../../../src/receipts/identity.ts';
import { createLedger, type Ledger } from '../../../src/ledger/ledger.ts';
import { createReceiptIssuer, type IssuedReceipt } from '../../../src/receipts/receipt-issuer.ts';

const FIXED_NOW = new Date('2026-11-24T12:00:00.000Z');
let dir: string;
let ledger: Ledger;
let identity: Identity;
const issued: IssuedReceipt[] = [];
const BODY = '{"smri":71,"band":"low-risk"}';

/** The trust endpoints as the service answers them, over the real ledger. */
function trustFetch(overrides: { pubkey?: string; checkpointRoot?: string } = {}): TrustFetch {
  return async (path) => {
    const url = new URL(path, 'http://service');
    if (url.pathname === '/trust/pubkey') return { status: 200, body: { publicKey: overrides.pubkey ?? identity.publicKey } };
    if (url.pathname === '/trust/checkpoint') {
      const head = ledger.head();
      const cp = await createCheckpoint({ service: 'svc', publicKey: identity.publicKey, sign: (m) => signEd25519(identity.secretKey, m) }, head, FIXED_NOW);
      return { status: 200, body: overrides.checkpointRoot ? { ...cp, rootHash: { ...cp.rootHash, spec: overrides.checkpointRoot } } : cp };
    }
    if (url.pathname === '/trust/proof') {
      const index = Number(url.searchParams.get('index'));
      const proof = ledger.proof(index, Number(url.searchParams.get('treeSize')));
      return proof.ok ? { status: 200, body: { ...proof.value, entry: ledger.entry(index) } } : { status: 404, body: { error: 'not_found' } };
    }
    return { status: 404, body: { error: 'not_found' } };
  };
}

const failed = (lines: readonly { ok: boolean; name: string }[]) => lines.filter((l) => !l.ok).map((l) => l.name);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'receipt-check-'));
  identity = loadOrCreateIdentity(join(dir, 'identity.json'));
  ledger = await createLedger({ dir: join(dir, 'ledger'), now: () => FIXED_NOW });
  const issuer = createReceiptIssuer({
    ledger,
    service: 'svc',
    serviceVersion: '0.1.9',
    baseUrl: () => 'http://service',
    publicKey: identity.publicKey,
    sign: (m) => signEd25519(identity.secretKey, m),
    now: () => FIXED_NOW,
  });
  for (let i = 0; i < 7; i++)
    issued.push(await issuer.issue({ originalUrl: `/v1/smri?mint=${i}`, endpoint: '/v1/smri', priceUsdcUnits: 10_000, network: 'solana:x', body: BODY }));
});

afterAll(async () => {
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('client-side receipt checks', () => {
  it('accept every receipt the service issued, from the header value, with its body', async () => {
    for (const r of issued) {
      const parsed = parseReceipt(r.headerValue);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      const report = await verifyReceipt(parsed.receipt, trustFetch(), { body: new TextEncoder().encode(BODY) });
      expect(failed(report.lines)).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.lines.length).toBeGreaterThanOrEqual(12);
    }
  });

  it('refuse a changed field, a wrong body, a foreign key and a root that is not the signed one', async () => {
    const receipt = (parseReceipt(JSON.stringify(issued[3]!.receipt)) as { receipt: Record<string, unknown> }).receipt;
    const tampered = await verifyReceipt({ ...receipt, priceUsdcUnits: 1 }, trustFetch());
    expect(failed(tampered.lines)).toEqual([
      'ed25519 signature over utf8(canonicalReceipt) by signedBy',
      'entry.receiptSha256 equals sha256(canonicalReceipt)',
    ]);
    const body = await verifyReceipt(receipt, trustFetch(), { body: new TextEncoder().encode(`${BODY} `) });
    expect(failed(body.lines)).toEqual(['sha256(body) equals responseSha256', 'body length equals responseBytes']);
    const foreign = await verifyReceipt(receipt, trustFetch({ pubkey: '11111111111111111111111111111111' }));
    expect(failed(foreign.lines)).toContain('signedBy is the published key');
    const root = await verifyReceipt(receipt, trustFetch({ checkpointRoot: '0'.repeat(64) }));
    expect(failed(root.lines)).toEqual(['checkpoint signed by the published key']);
    const reordered = Object.fromEntries(Object.entries(receipt).reverse());
    expect((await verifyReceipt(reordered, trustFetch())).ok).toBe(false);
  });

  it('verify a proof by index and refuse one outside the signed tree', async () => {
    expect(failed((await verifyProofAt(5, trustFetch())).lines)).toEqual([]);
    expect((await verifyProofAt(7, trustFetch())).ok).toBe(false);
    expect((await verifyProofAt(-1, trustFetch())).ok).toBe(false);
  });

  it('parse only JSON objects or base64 of them, and never throw on garbage', async () => {
    expect(parseReceipt('').ok).toBe(false);
    expect(parseReceipt('%%%').ok).toBe(false);
    expect(parseReceipt('WzFd').ok).toBe(false); // base64 of [1]
    const report = await verifyReceipt({ signature: 5, ledgerIndex: 'x' }, trustFetch());
    expect(report.ok).toBe(false);
  });
});

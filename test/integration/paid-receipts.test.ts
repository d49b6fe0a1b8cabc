/**
 * The trust layer on real paid calls: the official x402 client pays /v1/epoch, the 200 carries a
 * receipt that an independent verifier (tweetnacl + bs58) accepts, its ledger entry is on /ledger
 * and its inclusion proof verifies by the contract's rule; `x402-intel verify-receipt` accepts it
 * and refuses tampered copies; the kill switch stops paid calls with
 * 503 and its transitions are audited ledger entries.
 */
import bs58 from 'bs58';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { runCliIn } from '../helpers/cli-in-process.ts';
import { runCliProcess } from '../helpers/cli-process.ts';
import { SOLANA } from '../helpers/official-svm-client.ts';
import { usePaidService } from '../helpers/paid-fixture.ts';
import { readJson } from '../helpers/read-json.ts';
import { decodeVerifierKey } from '../../src/tlog/signed-note.ts';
import { openCheckpoint } from '../../src/tlog/tlog-checkpoint.ts';

const paid = usePaidService();

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

describe('receipts of real paid calls', () => {
  it('verify independently, match the body, and sit in the ledger with a valid proof under the simple rule', async () => {
    const res = await paid.pay('/v1/epoch?rate=both');
    expect(res.status).toBe(200);
    const body = new Uint8Array(await res.arrayBuffer());
    const receipt = JSON.parse(Buffer.from(res.headers.get('x-service-receipt')!, 'base64').toString());
    const { signature, ...unsigned } = receipt;
    expect(Object.keys(unsigned)).toEqual([
      'schema',
      'service',
      'resource',
      'endpoint',
      'priceUsd',
      'priceUsdcUnits',
      'network',
      'serviceVersion',
      'requestSha256',
      'responseSha256',
      'responseBytes',
      'ledgerChainHead',
      'generatedAtUtc',
      'ledgerIndex',
    ]);
    expect(unsigned).toMatchObject({
      endpoint: '/v1/epoch',
      resource: '/v1/epoch?rate=both',
      priceUsd: '$0.001',
      priceUsdcUnits: 1000,
      network: SOLANA,
      serviceVersion: '0.1.9',
      responseBytes: body.length,
    });
    expect(unsigned.responseSha256).toBe(sha256(body).toString('hex'));
    expect(unsigned.requestSha256).toBe(sha256('GET /v1/epoch?rate=both').toString('hex'));
    const canonical = new TextEncoder().encode(JSON.stringify(unsigned));
    const pub = await readJson(fetch(`${paid.url}/trust/pubkey`));
    expect(signature.signedBy).toBe(pub.publicKey);
    expect(nacl.sign.detached.verify(canonical, bs58.decode(signature.signatureBase58), bs58.decode(signature.signedBy))).toBe(true);
    const tampered = Uint8Array.from(canonical);
    tampered[10] = tampered[10]! ^ 1;
    expect(nacl.sign.detached.verify(tampered, bs58.decode(signature.signatureBase58), bs58.decode(signature.signedBy))).toBe(false);

    const ledger = await readJson(fetch(`${paid.url}/ledger?limit=1000`));
    const entry = ledger.entries.find((e: { index: number }) => e.index === unsigned.ledgerIndex);
    expect(entry).toMatchObject({ kind: 'payment', endpoint: '/v1/epoch', prevHash: unsigned.ledgerChainHead });
    expect(entry.receiptSha256).toBe(sha256(canonical).toString('hex'));
    expect(JSON.stringify(entry)).not.toContain('rate=both');

    const proof = await readJson(fetch(`${paid.url}/trust/proof?index=${unsigned.ledgerIndex}`));
    let cur = Buffer.from(proof.leaf, 'hex');
    expect(proof.leaf).toBe(entry.entrySha256);
    for (const step of proof.proof) {
      const h = Buffer.from(step.hash, 'hex');
      cur = sha256(step.side === 'left' ? Buffer.concat([h, cur]) : Buffer.concat([cur, h]));
    }
    expect(cur.toString('hex')).toBe(proof.merkleRootSha256);

    const verdict = await readJson(
      fetch(`${paid.url}/trust/verify?receipt=${encodeURIComponent(res.headers.get('x-service-receipt')!)}&bodySha256=${unsigned.responseSha256}`),
    );
    expect(verdict.valid).toBe(true);
  });

  it("a paid call's writes are one commit of the data directory's journal, counted in /health", async () => {
    const before = (await readJson(fetch(`${paid.url}/health`))).storage;
    expect(before).toMatchObject({ kind: 'files', journal: { writable: true } });
    const res = await paid.pay('/v1/epoch?rate=both');
    expect(res.status).toBe(200);
    const after = (await readJson(fetch(`${paid.url}/health`))).storage.journal;
    // The 200's commit (replay record, entry, kept 200) and the pending record before the broadcast.
    expect(after.commits - before.journal.commits).toBeGreaterThanOrEqual(2);
    expect(after.durableWrites).toBeGreaterThan(before.journal.durableWrites);
    expect(after.durableWrites - before.journal.durableWrites).toBeLessThanOrEqual(after.commits - before.journal.commits);
  });

  it('a paid call lands in the tiled log: /checkpoint opens with the published vkey, its entry bundle holds the entry', async () => {
    const res = await paid.pay('/v1/epoch');
    expect(res.status).toBe(200);
    const receipt = JSON.parse(Buffer.from(res.headers.get('x-service-receipt')!, 'base64').toString());
    const pub = await readJson(fetch(`${paid.url}/trust/pubkey`));
    // No --public-url and no --log-origin: the origin is the service name and the identity key.
    expect(pub.logOrigin).toBe(`solana-x402-intel/${pub.publicKey}`);
    const key = decodeVerifierKey(pub.noteVerifierKey);
    if (!key.ok) throw new Error(key.reason);
    const opened = openCheckpoint(await (await fetch(`${paid.url}/checkpoint`)).text(), key.value, pub.logOrigin);
    if (!opened.ok) throw new Error(opened.reason);
    const { treeSize } = opened.value.checkpoint;
    expect(treeSize).toBeGreaterThan(receipt.ledgerIndex);
    const n = Math.floor(receipt.ledgerIndex / 256);
    const width = Math.min(256, treeSize - n * 256);
    const bundle = Buffer.from(await (await fetch(`${paid.url}/tile/entries/${String(n).padStart(3, '0')}${width < 256 ? `.p/${width}` : ''}`)).arrayBuffer());
    const at = (receipt.ledgerIndex % 256) * 34;
    const entry = (await readJson(fetch(`${paid.url}/trust/proof?index=${receipt.ledgerIndex}&format=rfc6962`))).entry;
    expect(bundle.subarray(at + 2, at + 34).toString('hex')).toBe(entry.entrySha256);
    expect(entry.receiptSha256).toBe(sha256(JSON.stringify((({ signature: _s, ...u }) => u)(receipt))).toString('hex'));
  }, 120_000);

  it('x402-intel verify-receipt (a child process, as a user runs it) proves the answer was signed and logged, and refuses tampered ones', async () => {
    // The first run is a child process; the others run the same CLI in this process, in the same directory:
    // a child adds only its start (about 0.65 s of CPU) and the exit status as a process sees it (cli.test.ts's).
    const res = await paid.pay('/v1/epoch?rate=primary');
    expect(res.status).toBe(200);
    const header = res.headers.get('x-service-receipt')!;
    const body = Buffer.from(await res.arrayBuffer());
    const dir = mkdtempSync(join(tmpdir(), 'verify-receipt-'));
    const verifyArgs = (args: readonly string[]) => ['verify-receipt', ...args, '--url', paid.url];
    const verifyChild = (args: readonly string[]) => runCliProcess(verifyArgs(args), { cwd: dir, home: dir });
    const verify = (args: readonly string[]) => runCliIn(dir, verifyArgs(args));
    try {
      writeFileSync(join(dir, 'receipt.b64'), `${header}\n`);
      writeFileSync(join(dir, 'body'), body);
      const good = await verifyChild(['receipt.b64', '--body', 'body']);
      expect(good.stdout).not.toContain('FAIL');
      expect(good.stdout).toContain('PASS  sha256(body) equals responseSha256');
      expect(good.stdout).toContain('PASS  the proof rule leads from the leaf to merkleRootSha256');
      expect(good.stdout).toContain('VERIFIED');
      expect(good.code).toBe(0);
      // The decoded JSON, no body.
      writeFileSync(join(dir, 'receipt.json'), Buffer.from(header, 'base64'));
      expect((await verify(['receipt.json'])).code).toBe(0);

      const flipped = Buffer.from(body);
      flipped[flipped.length - 2] = flipped[flipped.length - 2]! ^ 1;
      writeFileSync(join(dir, 'body'), flipped);
      const badBody = await verify(['receipt.b64', '--body', 'body']);
      expect(badBody.code).toBe(1);
      expect(badBody.stdout).toContain('FAIL  sha256(body) equals responseSha256');

      const receipt = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
      writeFileSync(join(dir, 'forged.b64'), Buffer.from(JSON.stringify({ ...receipt, priceUsdcUnits: receipt.priceUsdcUnits + 1 })).toString('base64'));
      const badReceipt = await verify(['forged.b64']);
      expect(badReceipt.code).toBe(1);
      expect(badReceipt.stdout).toContain('FAIL  ed25519 signature');
      expect(badReceipt.stdout).toContain('FAIL  entry.receiptSha256 equals sha256(canonicalReceipt)');
      expect(badReceipt.stdout).toContain('NOT VERIFIED');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('the kill switch answers 503 to paid calls, is audited, and release restores service', async () => {
    const token = readFileSync(paid.service.adminTokenPath!, 'utf8').trim();
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    expect((await fetch(`${paid.service.adminUrl}/kill-switch/activate`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${paid.service.adminUrl}/kill-switch/activate`, { method: 'POST', headers: auth, body: '{"reason":"test stop"}' })).status).toBe(200);
    expect((await fetch(`${paid.url}/v1/epoch`)).status).toBe(503);
    const health = await readJson(fetch(`${paid.url}/health`));
    expect(health.killSwitch.active).toBe(true);
    expect((await fetch(`${paid.service.adminUrl}/kill-switch/release`, { method: 'POST', headers: auth })).status).toBe(200);
    expect((await fetch(`${paid.url}/v1/epoch`)).status).toBe(402);
    const ledger = await readJson(fetch(`${paid.url}/ledger`));
    const audits = ledger.entries.filter((e: { kind: string }) => e.kind === 'audit');
    expect(audits.length).toBeGreaterThanOrEqual(2);
  });
});

/**
 * The trust endpoints and the admin listener on real uWS servers over a real ledger in a temp
 * dir, checked the way a client would: hashes, links and proofs recomputed here from the bytes
 * served, signatures with tweetnacl + bs58.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminServer, type AdminServer } from '../../src/operations/admin-server.ts';
import { createFreeRoutes } from '../../src/http/routes/free-routes.ts';
import { createRequestMetrics } from '../../src/http/routes/request-metrics.ts';
import { createHttpServer, type HttpServer } from '../../src/http/server/server.ts';
import { createTrustRoutes } from '../../src/http/routes/trust-routes.ts';
import { METHODOLOGY } from '../../src/intel/methodology.ts';
import { signEd25519, verifyCheckpoint } from '../../src/tlog/checkpoint.ts';
import { loadOrCreateIdentity, type Identity } from '../../src/receipts/identity.ts';
import { createKillSwitch, type KillSwitch } from '../../src/operations/kill-switch.ts';
import type { LedgerEntry } from '../../src/ledger/ledger-entry.ts';
import { createLedger, type Ledger } from '../../src/ledger/ledger.ts';
import { verifyConsistency, verifyInclusionRfc6962 } from '../../src/ledger/merkle-verify.ts';
import { createReceiptIssuer, type IssuedReceipt } from '../../src/receipts/receipt-issuer.ts';
import { createTrustStatus } from '../../src/operations/trust-status.ts';
import { readJson } from '../helpers/read-json.ts';

const sha = (b: string | Uint8Array) => createHash('sha256').update(b).digest('hex');
const dataDir = mkdtempSync(join(tmpdir(), 'trust-http-'));

interface Running {
  ledger: Ledger;
  killSwitch: KillSwitch;
  server: HttpServer;
  admin: AdminServer;
  url: string;
  adminUrl: string;
}

let identity: Identity;
let run: Running;
const issued: Array<{ issued: IssuedReceipt; body: string }> = [];

async function start(): Promise<Running> {
  identity = loadOrCreateIdentity(join(dataDir, 'identity.json'));
  const sign = (m: Uint8Array) => signEd25519(identity.secretKey, m);
  const ledger = await createLedger({ dir: join(dataDir, 'ledger') });
  const killSwitch = createKillSwitch({ dataDir, ledger });
  let url = '';
  const metrics = createRequestMetrics();
  const routes = [
    ...createFreeRoutes({
      serviceName: 'solana-x402-intel',
      version: '0.1.9',
      startedAt: new Date(),
      metrics: () => metrics.snapshot(),
      documents: () => ({ wellKnown: '{}', openApi: '{}', llmsTxt: '', pricingHtml: '' }),
      supported: () => ({ kinds: [], signers: {} }),
      statusExtras: createTrustStatus({ ledger, killSwitch }),
    }),
    ...createTrustRoutes({ ledger, identity, baseUrl: () => url, serviceName: 'solana-x402-intel', serviceVersion: '0.1.9', sign, methodology: METHODOLOGY }),
  ];
  const server = createHttpServer({ routes });
  url = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
  const admin = createAdminServer({ port: 0, token: null, dataDir, killSwitch });
  const adminUrl = `http://127.0.0.1:${await admin.listen()}`;
  return { ledger, killSwitch, server, admin, url, adminUrl };
}

async function stop(r: Running): Promise<void> {
  await Promise.all([r.server.close(), r.admin.close()]);
  await r.ledger.close();
}

async function issue(i: number): Promise<void> {
  const issuer = createReceiptIssuer({
    ledger: run.ledger,
    service: 'solana-x402-intel',
    serviceVersion: '0.1.9',
    baseUrl: () => run.url,
    publicKey: identity.publicKey,
    sign: (m) => signEd25519(identity.secretKey, m),
  });
  const body = JSON.stringify({ mint: `Mint${i}`, smri: i % 101, note: 'ünïcode ✓' });
  issued.push({
    issued: await issuer.issue({ originalUrl: `/v1/smri?mint=Mint${i}`, endpoint: '/v1/smri', priceUsdcUnits: 10000, network: 'eip155:8453', body }),
    body,
  });
}

const get = (path: string, init?: RequestInit) => fetch(`${run.url}${path}`, init);
const admin = (path: string, token: string | null, init: RequestInit = {}) =>
  fetch(`${run.adminUrl}${path}`, {
    ...init,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string> | undefined) },
  });
const adminToken = () => readFileSync(run.admin.tokenPath!, 'utf8').trim();

/** What a client does with `/ledger`: recompute every hash and follow every link. */
function verifyChainClientSide(entries: readonly LedgerEntry[], firstPrev: string): void {
  let prev = firstPrev;
  for (const e of entries) {
    const { entrySha256, ...rest } = e;
    expect(sha(JSON.stringify(rest))).toBe(entrySha256);
    expect(e.prevHash).toBe(prev);
    prev = entrySha256;
  }
}

/** The simple rule (docs/contract.md#merkle-proofs), over the raw bytes the hex encodes. */
function specRootOf(leaf: string, proof: ReadonlyArray<{ hash: string; side: string }>): string {
  let cur = Buffer.from(leaf, 'hex');
  for (const s of proof) {
    const h = Buffer.from(s.hash, 'hex');
    cur = createHash('sha256')
      .update(s.side === 'left' ? Buffer.concat([h, cur]) : Buffer.concat([cur, h]))
      .digest();
  }
  return cur.toString('hex');
}

beforeAll(async () => {
  run = await start();
  for (let i = 0; i < 6; i++) await issue(i);
});
afterAll(async () => {
  await stop(run);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('kill switch over the admin listener', () => {
  it('refuses requests without or with a wrong bearer token', async () => {
    expect(run.admin.tokenCreated).toBe(true);
    expect(statSync(run.admin.tokenPath!).mode & 0o777).toBe(0o600);
    for (const token of [null, 'wrong-token-0123456789', `${adminToken()}x`]) {
      const res = await admin('/kill-switch', token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await admin('/kill-switch/activate', token, { method: 'POST' })).status).toBe(401);
    }
    expect(run.killSwitch.isActive()).toBe(false);
  });

  it('activates and releases with audited ledger entries, visible in /health and /ledger', async () => {
    const token = adminToken();
    expect(await readJson(admin('/kill-switch', token))).toEqual({ active: false, since: null, reason: null, ledgerIndex: null });
    const bad = await admin('/kill-switch/activate', token, { method: 'POST', body: JSON.stringify({ reason: 'x'.repeat(257) }) });
    expect([bad.status, (await readJson(bad)).error]).toEqual([400, 'invalid_request']);
    const on = await readJson(admin('/kill-switch/activate', token, { method: 'POST', body: JSON.stringify({ reason: 'upstream outage' }) }));
    expect(on).toMatchObject({ active: true, reason: 'upstream outage', changed: true, ledgerIndex: 6 });
    expect(await readJson(admin('/kill-switch/activate', token, { method: 'POST' }))).toMatchObject({ active: true, changed: false, ledgerIndex: 6 });
    expect(run.killSwitch.isActive()).toBe(true);
    expect((await readJson(get('/health'))).killSwitch).toMatchObject({ active: true });
    await issue(6);
    const off = await readJson(admin('/kill-switch/release', token, { method: 'POST', body: '' }));
    expect(off).toMatchObject({ active: false, changed: true, ledgerIndex: 8 });
    await readJson(admin('/kill-switch/activate', token, { method: 'POST', body: '{"reason":"left on across a restart"}' }));
    const entries: LedgerEntry[] = (await readJson(get('/ledger'))).entries;
    expect(entries.filter((e) => e.kind === 'audit').map((e) => [e.index, e.kind === 'audit' && e.event, e.kind === 'audit' && e.reason])).toEqual([
      [6, 'kill-switch.activated', 'upstream outage'],
      [8, 'kill-switch.released', undefined],
      [9, 'kill-switch.activated', 'left on across a restart'],
    ]);
  });
});

describe('ledger and proofs over HTTP', () => {
  it('serves /ledger oldest first; the chain re-verifies client-side and ends at the head', async () => {
    const all = await readJson(get('/ledger'));
    expect(all.count).toBe(10);
    expect(all.entries.map((e: LedgerEntry) => e.index)).toEqual([...Array(10).keys()]);
    verifyChainClientSide(all.entries, '0'.repeat(64));
    expect(all.chainHeadSha256).toBe(all.entries.at(-1).entrySha256);
    const tail = await readJson(get('/ledger?limit=4'));
    expect(tail.entries.map((e: LedgerEntry) => e.index)).toEqual([6, 7, 8, 9]);
    verifyChainClientSide(tail.entries, all.entries[5].entrySha256);
    // The age is read between these two readings of the clock: it lies between the ages they give.
    const asked = Date.now();
    const health = await readJson(get('/uptime'));
    const answered = Date.now();
    expect(health.ledger).toMatchObject({ chainHeadSha256: all.chainHeadSha256, merkleRootSha256: all.merkleRootSha256, entries: 10 });
    const ageAt = (ms: number) => Math.max(0, Math.round((ms - Date.parse(health.ledger.lastEntryAt)) / 1000));
    const [youngest, oldest] = [ageAt(asked), ageAt(answered)];
    expect(health.ledger.lastEntryAgeSeconds).toBeGreaterThanOrEqual(youngest);
    expect(health.ledger.lastEntryAgeSeconds).toBeLessThanOrEqual(oldest);
    const log = await readJson(get('/trust/log?limit=1000'));
    expect(log).toMatchObject({ treeSize: 10, chainHeadSha256: all.chainHeadSha256, merkleRootSha256: all.merkleRootSha256 });
    for (const q of ['limit=0', 'limit=1001', 'limit=1.5', 'limit=abc', 'limit=-1', 'limit=', 'limit=1&limit=2']) {
      const res = await get(`/ledger?${q}`);
      expect([q, res.status, (await readJson(res)).param]).toEqual([q, 400, 'limit']);
    }
  });

  it('answers proofs that verify with the simple rule at every index and size', async () => {
    const { entries, merkleRootSha256 } = await readJson(get('/ledger'));
    for (let i = 0; i < 10; i++) {
      const p = await readJson(get(`/trust/proof?index=${i}`));
      expect(p).toMatchObject({ index: i, leaf: entries[i].entrySha256, treeSize: 10, merkleRootSha256 });
      expect(specRootOf(p.leaf, p.proof)).toBe(merkleRootSha256);
      const r = await readJson(get(`/trust/proof?index=${i}&format=rfc6962`));
      expect(verifyInclusionRfc6962(r)).toEqual({ ok: true });
      const old = await readJson(get(`/trust/proof?index=${i}&treeSize=${i + 1}`));
      expect(specRootOf(old.leaf, old.proof)).toBe(old.merkleRootSha256);
    }
    for (const [q, status] of [
      ['index=10', 404],
      ['index=3&treeSize=3', 404],
      ['index=-1', 400],
      ['index=x', 400],
      ['', 400],
      ['index=1.5', 400],
      ['index=0&treeSize=11', 400],
      ['index=0&format=md5', 400],
    ] as const) {
      expect([q, (await get(`/trust/proof?${q}`)).status]).toEqual([q, status]);
    }
  });

  it('signs checkpoints and proves consistency between sizes', async () => {
    const cp = await readJson(get('/trust/checkpoint'));
    expect(verifyCheckpoint(cp, identity.publicKey)).toEqual({ ok: true });
    const { signature, ...unsigned } = cp;
    expect(
      nacl.sign.detached.verify(new TextEncoder().encode(JSON.stringify(unsigned)), bs58.decode(signature.signatureBase58), bs58.decode(identity.publicKey)),
    ).toBe(true);
    const c = await readJson(get('/trust/consistency?from=3&to=10'));
    expect(verifyConsistency(c)).toEqual({ ok: true });
    expect(c.toRoot).toBe(cp.rootHash.rfc6962);
    expect(verifyConsistency(await readJson(get('/trust/consistency?from=7&format=spec')))).toEqual({ ok: true });
    for (const q of ['from=11', 'from=5&to=4', 'to=11&from=1', 'from=x', 'to=3']) expect([q, (await get(`/trust/consistency?${q}`)).status]).toEqual([q, 400]);
  });
});

describe('parameters of the free and trust endpoints', () => {
  // Each path with the parameters it takes; a parameter outside them is refused, never ignored.
  const PATHS: Record<string, readonly string[]> = {
    '/health': [],
    '/uptime': [],
    '/facilitator/supported': [],
    '/.well-known/x402': [],
    '/openapi.json': [],
    '/llms.txt': [],
    '/pricing': [],
    '/ledger': ['limit'],
    '/trust/log': ['limit'],
    '/trust/proof': ['index', 'treeSize', 'format'],
    '/trust/consistency': ['from', 'to', 'format'],
    '/trust/checkpoint': [],
    '/trust/verify': ['receipt', 'body', 'bodySha256'],
    '/trust/pubkey': [],
    '/trust/sir': [],
  };

  it('answer 400 unknown_parameter naming it, e.g. /trust/checkpoint?size=-1 (was 200)', async () => {
    for (const [path, accepted] of Object.entries(PATHS)) {
      const res = await fetch(`${run.url}${path}?size=-1`);
      expect(res.status, path).toBe(400);
      const body = await readJson(res);
      expect(body, path).toMatchObject({ error: 'unknown_parameter', param: 'size' });
      for (const name of accepted) expect(body.message, path).toContain(name);
    }
    expect((await fetch(`${run.url}/trust/checkpoint?`)).status).toBe(200);
    expect((await fetch(`${run.url}/health`)).status).toBe(200);
  });

  it('still refuse repeated and out-of-range parameters with the parameter named', async () => {
    const repeated = await readJson(fetch(`${run.url}/ledger?limit=1&limit=2`));
    expect(repeated).toMatchObject({ error: 'repeated_parameter', param: 'limit' });
    const range = await readJson(fetch(`${run.url}/trust/proof?index=-1`));
    expect(range).toMatchObject({ error: 'invalid_parameter', param: 'index' });
  });
});

describe('receipts over HTTP', () => {
  it('publishes the key and the open receipt specification', async () => {
    expect(await readJson(get('/trust/pubkey'))).toMatchObject({ publicKey: identity.publicKey, algorithm: 'ed25519' });
    const sir = await readJson(get('/trust/sir'));
    expect(sir.receipt.fields.map((f: { name: string }) => f.name)).toEqual(Object.keys(issued[0]!.issued.receipt));
    expect(sir.receipt.canonicalization.note).toMatch(/ledgerIndex is included/);
    expect(sir.merkle.specProof.byteLevel).toMatch(/raw32/);
    expect(sir.methodology.token.methodologyVersion).toBe(METHODOLOGY.token.methodologyVersion);
    expect(sir.methodology.token.firewall.presets.degen).toMatchObject({ minSmri: 20, maxConcentrationPct: 90, minConfidence: 0.3 });
  });

  it('verifies a real receipt (GET and POST) and reports each failed check of tampered ones', async () => {
    const {
      issued: { headerValue, receipt },
      body,
    } = issued[2]!;
    const q = (p: Record<string, string>) => `/trust/verify?${new URLSearchParams(p)}`;
    const ok = await readJson(get(q({ receipt: headerValue, body: Buffer.from(body).toString('base64') })));
    expect(ok.valid).toBe(true);
    expect(Object.values(ok.checks).map((c) => (c as { status: string }).status)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
    const posted = await readJson(get('/trust/verify', { method: 'POST', body: JSON.stringify({ receipt: headerValue, bodySha256: sha(body) }) }));
    expect(posted.valid).toBe(true);

    const tampered = Buffer.from(JSON.stringify({ ...receipt, priceUsdcUnits: 1 })).toString('base64');
    const bad = await readJson(get(q({ receipt: tampered })));
    expect([bad.valid, bad.checks.signature.status, bad.checks.ledgerInclusion.status]).toEqual([false, 'fail', 'fail']);
    const badBody = await readJson(get(q({ receipt: headerValue, body: Buffer.from(`${body} `).toString('base64') })));
    expect([badBody.valid, badBody.checks.signature.status, badBody.checks.responseSha256.status]).toEqual([false, 'pass', 'fail']);
    for (const p of [{}, { receipt: 'Zm9v' }, { receipt: headerValue, bodySha256: 'abc' }, { receipt: headerValue, body: 'Zg==', bodySha256: sha(body) }]) {
      expect((await get(q(p as Record<string, string>))).status).toBe(400);
    }
  });
});

describe('restart', () => {
  it('keeps the kill-switch state, the token and the chain across a reopen', async () => {
    const token = adminToken();
    const before = await readJson(get('/ledger'));
    await stop(run);
    run = await start();
    expect(run.admin.tokenCreated).toBe(false);
    expect(run.killSwitch.isActive()).toBe(true);
    expect(await readJson(admin('/kill-switch', token))).toMatchObject({ active: true, reason: 'left on across a restart', ledgerIndex: 9 });
    expect(await readJson(get('/ledger'))).toEqual(before);
    await readJson(admin('/kill-switch/release', token, { method: 'POST' }));
    await issue(10);
    const after = await readJson(get('/ledger'));
    verifyChainClientSide(after.entries, '0'.repeat(64));
    expect(after.count).toBe(12);
    const v = await readJson(get(`/trust/verify?${new URLSearchParams({ receipt: issued[0]!.issued.headerValue })}`));
    expect([v.valid, v.checks.ledgerInclusion.status]).toEqual([true, 'pass']);
  });
});

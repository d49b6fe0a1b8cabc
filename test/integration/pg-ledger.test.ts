/**
 * The ledger the database sequences, against a real PostgreSQL (one fresh database for this
 * file), with several ledgers on their own connection pools as separate instances would be:
 * concurrent appends from all of them make one gap-free chain and one tree whose heads and
 * proofs agree everywhere; a new instance rebuilds the same view from the table; the database
 * away mid-append delays the append (never a lost or doubled entry) and paid calls are stopped
 * meanwhile; the payment-identifier claim lets exactly one of many concurrent claims through.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyMigrations } from '../../src/postgres/migrate.ts';
import { createPgClient, type PgClient } from '../../src/postgres/pg-client.ts';
import type { Ledger } from '../../src/ledger/ledger.ts';
import { createPgLedger } from '../../src/ledger/pg-ledger.ts';
import { createPgPaidAnswerStore } from '../../src/x402/stores/pg-paid-answer-store.ts';
import { chainProblem, specMerkleRoot, specProofRoot, type ServedEntry } from '../helpers/ledger-client.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { startTcpFaultRelay, type TcpFaultRelay } from '../helpers/tcp-fault-relay.ts';

let db: TestDatabase;
let relay: TcpFaultRelay;
const clients: PgClient[] = [];
const ledgers: Ledger[] = [];

const client = (url = db.url, timeoutMs?: number): PgClient => {
  const c = createPgClient({ url, maxConnections: 4, queryTimeoutMs: timeoutMs, connectTimeoutMs: timeoutMs });
  clients.push(c);
  return c;
};
const open = async (c: PgClient = client(), options: { retryMs?: number } = {}): Promise<Ledger> => {
  const l = await createPgLedger({ db: c, viewDir: join(mkdtempSync(join(tmpdir(), 'pg-ledger-')), 'view'), pollMs: 200, ...options });
  ledgers.push(l);
  return l;
};
const payment = (n: number) =>
  ({ kind: 'payment', endpoint: '/v1/epoch', priceUsdcUnits: 1000 + n, network: 'solana:test', receiptSha256: n.toString(16).padStart(64, '0') }) as const;

/** Waits until every ledger's view holds `size` entries (they poll the database). */
async function settled(ls: readonly Ledger[], size: number): Promise<void> {
  await vi.waitUntil(() => ls.every((l) => l.head().treeSize >= size), { timeout: 10_000, interval: 25 });
}

beforeAll(async () => {
  db = await createTestDatabase('pg-ledger');
  await applyMigrations(client());
  relay = await startTcpFaultRelay(db.port);
}, 120_000);
afterAll(async () => {
  for (const l of ledgers) await l.close().catch(() => undefined);
  await Promise.all(clients.map((c) => c.close()));
  await relay?.close();
  await db?.drop();
});

describe('one chain across instances', () => {
  it('concurrent appends from three instances: gap-free, one root, equal proofs; a fourth rebuilds the same view', async () => {
    const three = [await open(), await open(), await open()];
    const results = await Promise.all(Array.from({ length: 90 }, (_, n) => three[n % 3]!.append(payment(n))));
    expect(results.map((r) => r.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 90 }, (_, i) => i));
    // Each append resolved only once its own view held it.
    for (const [n, r] of results.entries()) expect(three[n % 3]!.entry(r.index)?.entrySha256).toBe(r.entrySha256);
    await settled(three, 90);
    const heads = three.map((l) => l.head());
    expect(new Set(heads.map((h) => `${h.treeSize}/${h.chainHead}/${h.merkleRoot}/${h.merkleRootRfc6962}`)).size).toBe(1);
    const entries = three[1]!.recent(1000) as unknown as ServedEntry[];
    expect(chainProblem(entries)).toBeNull();
    expect(specMerkleRoot(entries.map((e) => e.entrySha256))).toBe(heads[0]!.merkleRoot);
    const proofs = three.map((l) => l.proof(17, 90));
    expect(proofs[0]).toEqual(proofs[2]);
    const p = proofs[0]!;
    expect(p.ok && specProofRoot(p.value.leaf, p.value.proof)).toBe(heads[0]!.merkleRoot);
    expect(three[0]!.consistency(40, 90)).toEqual(three[2]!.consistency(40, 90));
    const fourth = await open();
    expect(fourth.head()).toEqual(heads[0]);
    expect(fourth.openReport.entries).toBe(90);
  });

  it('the database away mid-append: the append waits (paid calls stopped), then commits exactly once', async () => {
    const viaRelay = client(rewrite(), 500);
    const ledger = await open(viaRelay, { retryMs: 50 });
    const before = ledger.head().treeSize;
    relay.mode = 'reset';
    const pending = ledger.append(payment(1_000));
    // The append has met the reset connection (and keeps retrying) once the ledger reports it.
    await vi.waitUntil(() => ledger.failure() !== null, { timeout: 10_000, interval: 10 });
    expect(ledger.failure()).toMatch(/database is unavailable/);
    relay.mode = 'pass';
    const r = await pending;
    expect(r.index).toBeGreaterThanOrEqual(before);
    expect(ledger.failure()).toBeNull();
    const rows = await client().query<{ n: number }>('select count(*)::int as n from ledger_entries where line like $1', [`%"priceUsdcUnits":2000,%`]);
    expect(rows[0]!.n).toBe(1);
  });
});

/** The test database's URL with its port replaced by the relay's. */
function rewrite(): string {
  const u = new URL(db.url);
  u.port = new URL(relay.url).port;
  return u.toString();
}

describe('payment-identifier claims', () => {
  it('many instances claim one id at once with different payments: exactly one acquires, the rest conflict', async () => {
    const stores = Array.from({ length: 4 }, () => createPgPaidAnswerStore({ db: client() }));
    const claims = await Promise.all(stores.flatMap((s, i) => [s.claim!('id-race-0123456789', `fp${i}a`), s.claim!('id-race-0123456789', `fp${i}b`)]));
    expect(claims.filter((c) => c.kind === 'acquired')).toHaveLength(1);
    expect(claims.filter((c) => c.kind === 'conflict')).toHaveLength(7);
  });

  it('the same payment elsewhere is busy; released, it can be claimed; answered, it is a hit', async () => {
    const [a, b] = [createPgPaidAnswerStore({ db: client() }), createPgPaidAnswerStore({ db: client() })];
    expect((await a.claim!('id-busy-0123456789', 'fp')).kind).toBe('acquired');
    expect((await b.claim!('id-busy-0123456789', 'fp')).kind).toBe('busy');
    expect((await b.lookup('id-busy-0123456789', 'fp')).kind).toBe('miss');
    await a.release!('id-busy-0123456789', 'fp');
    expect((await b.claim!('id-busy-0123456789', 'fp')).kind).toBe('acquired');
    await b.remember('id-busy-0123456789', 'fp', { status: 200, body: 'answer' });
    const hit = await a.claim!('id-busy-0123456789', 'fp');
    expect(hit.kind === 'hit' && String(hit.reply.body)).toBe('answer');
    expect((await a.claim!('id-busy-0123456789', 'other')).kind).toBe('conflict');
  });
});

/**
 * The storage seam against a real PostgreSQL (test/helpers/postgres.ts starts it when needed; one
 * fresh database for this file): files without --database-url; migrations applied once when
 * instances start at once; what only the database stores do, shared by several store instances,
 * each on its own connection pool as separate service instances would be (races between instances,
 * claim leases, the expiry sweep, the kill switch). The contract each payment store keeps with its
 * file twin is in its own suite (test/integration/*-stores.test.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openPaymentStores, openStorage } from '../../src/service/storage.ts';
import { startExpirySweeper } from '../../src/postgres/expiry-sweeper.ts';
import { applyMigrations, readMigrations } from '../../src/postgres/migrate.ts';
import { createPgClient, redactDatabaseUrl, type PgClient } from '../../src/postgres/pg-client.ts';
import type { Ledger } from '../../src/ledger/ledger.ts';
import type { LedgerDraft } from '../../src/ledger/ledger-entry.ts';
import { openPgKillSwitch } from '../../src/operations/pg-kill-switch.ts';
import { createPgPaidAnswerStore } from '../../src/x402/stores/pg-paid-answer-store.ts';
import { createPgPendingSettlements } from '../../src/x402/stores/pg-pending-settlements.ts';
import { createPgReplayGuard } from '../../src/x402/stores/pg-replay-guard.ts';
import type { PendingSettlement } from '../../src/x402/stores/pending-settlements.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

const INSTANCES = 4;
let db: TestDatabase;
const clients: PgClient[] = [];
/** One connection pool per simulated instance. */
const client = (): PgClient => {
  const c = createPgClient({ url: db.url, maxConnections: 4 });
  clients.push(c);
  return c;
};

beforeAll(async () => {
  db = await createTestDatabase('pg-storage');
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await db?.drop();
});

describe('the seam', () => {
  it('picks files without --database-url, exactly as before', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'seam-'));
    const config = loadConfig({}, ['--data-dir', dataDir]);
    expect(config.databaseUrl).toBeNull();
    const storage = await openStorage(config, () => false);
    expect(storage).toMatchObject({ kind: 'files', database: null, where: dataDir });
    const stores = openPaymentStores(storage, config);
    expect(stores.replayGuard.dir).toBe(join(dataDir, 'replay'));
    // The files' stores, each on the data directory's commit journal (the database's have no size).
    expect(stores.pending && 'size' in stores.pending).toBe(true);
    expect(storage.journal?.dir).toBe(dataDir);
    await stores.replayGuard.close();
    await storage.close();
  });

  it('never shows the password: redacted URL, and a bad URL is refused without echoing it', () => {
    expect(redactDatabaseUrl('postgres://svc:s3cret@db.internal:5432/x402')).toBe('postgres://svc:***@db.internal:5432/x402');
    expect(() => loadConfig({}, ['--database-url', 'mysql://svc:s3cret@db/x'])).toThrow(/postgres:\/\/ or postgresql:\/\/ URL \(value not shown\)/);
    try {
      loadConfig({ DATABASE_URL: 'http://svc:s3cret@db/x' }, []);
    } catch (err) {
      expect(String(err)).not.toContain('s3cret');
    }
    expect(loadConfig({ DATABASE_URL: db.url }, []).databaseUrl).toBe(db.url);
  });
});

describe('migrations', () => {
  it('instances starting at once apply each migration exactly once', async () => {
    const reports = await Promise.all([client(), client(), client()].map((c) => applyMigrations(c)));
    const applied = reports.flatMap((r) => r.applied).sort();
    expect(applied).toEqual(readMigrations().map((m) => m.version));
    expect(reports.filter((r) => r.applied.length > 0)).toHaveLength(1);
    const rows = await client().query<{ version: number }>('select version from schema_migrations order by version');
    expect(rows.map((r) => r.version)).toEqual(readMigrations().map((m) => m.version));
    expect((await applyMigrations(client())).applied).toEqual([]);
  });

  it('a database migrated by a newer build is refused', async () => {
    const c = client();
    await c.query("insert into schema_migrations (version, name) values (99, 'future')");
    await expect(applyMigrations(c)).rejects.toMatchObject({ code: 'database_unavailable', details: { reason: 'schema_newer' } });
    await c.query('delete from schema_migrations where version = 99');
  });

  it('openStorage with a URL migrates and says where, password hidden', async () => {
    const storage = await openStorage({ dataDir: tmpdir(), databaseUrl: db.url }, () => false);
    expect(storage.kind).toBe('postgres');
    expect(storage.where).not.toContain('x402-test-only');
    await storage.close();
  });
});

describe('replay guard shared by instances', () => {
  const guards = () => Array.from({ length: INSTANCES }, () => createPgReplayGuard({ db: client() }));

  it('concurrent claims of one key from every instance: exactly one winner; release, re-claim; settled refuses', async () => {
    const gs = guards();
    const results = await Promise.all(gs.flatMap((g) => [g.acquire('svm:race'), g.acquire('svm:race'), g.acquire('svm:race')]));
    expect(results.filter((r) => r === 'acquired')).toHaveLength(1);
    expect(results.filter((r) => r === 'in_flight')).toHaveLength(3 * INSTANCES - 1);
    await gs[0]!.release('svm:race');
    expect(await gs[2]!.acquire('svm:race')).toBe('acquired');
    await gs[2]!.markSettled('svm:race');
    expect(await Promise.all(gs.map((g) => g.acquire('svm:race')))).toEqual(Array(INSTANCES).fill('settled'));
  });

  it('a crashed claim frees itself after its lease', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const a = createPgReplayGuard({ db: client(), ttlMs: 1000, claimLeaseMs: 500, now: clock });
    const b = createPgReplayGuard({ db: client(), ttlMs: 1000, claimLeaseMs: 500, now: clock });
    expect(await a.acquire('evm:lease')).toBe('acquired');
    expect(await b.acquire('evm:lease')).toBe('in_flight');
    now += 500;
    expect(await b.acquire('evm:lease')).toBe('acquired');
  });
});

const RECORD: PendingSettlement = {
  network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  transaction: '5sig',
  payer: 'payer',
  payloadSha256: 'ab'.repeat(32),
  answer: { status: 200, headers: { 'Content-Type': 'application/json', 'X-B': '1', 'X-A': '2' }, bodyBase64: Buffer.from('{"a":1}').toString('base64') },
  paid: { originalUrl: '/v1/epoch', endpoint: '/v1/epoch', priceUsdcUnits: 1000 },
  recordedAt: 1,
};

describe('pending settlements shared by instances', () => {
  it('the sweep deletes an expired record', async () => {
    let now = 5_000;
    const c = client();
    const store = createPgPendingSettlements({ db: c, ttlMs: 100, now: () => now });
    await store.record('svm:old', RECORD);
    now += 100;
    expect(await c.query("select 1 from pending_settlements where key = 'svm:old'")).toHaveLength(1);
    const sweeper = startExpirySweeper({ db: c, intervalMs: 60_000, now: () => now });
    await sweeper.sweep();
    expect(await c.query("select 1 from pending_settlements where key = 'svm:old'")).toHaveLength(0);
    sweeper.close();
  });
});

describe('payment-identifier answers shared by instances', () => {
  it('the first answer of an id stays while it lives: a second one from another instance does not replace it', async () => {
    const [one, two] = [createPgPaidAnswerStore({ db: client() }), createPgPaidAnswerStore({ db: client() })];
    await one.remember('id-0123456789abcdef', 'fp1', { status: 200, headers: { 'PAYMENT-RESPONSE': 'x' }, body: 'body' });
    await two.remember('id-0123456789abcdef', 'fp2', { status: 200, body: 'other' });
    const kept = await one.lookup('id-0123456789abcdef', 'fp1');
    expect(kept.kind === 'hit' && String(kept.reply.body)).toBe('body');
  });
});

describe('kill switch shared by instances', () => {
  /** A ledger that counts the audit entries appended to it. */
  const ledger = () => {
    let index = 0;
    const appended: string[] = [];
    const append = async (draft: LedgerDraft) => {
      appended.push(draft.kind === 'audit' ? draft.event : draft.kind);
      return { index: index++ } as Awaited<ReturnType<Ledger['append']>>;
    };
    return { appended, append };
  };

  it('an operator stop on one instance stops the other; concurrent activations append one audit entry', async () => {
    const [la, lb] = [ledger(), ledger()];
    const a = await openPgKillSwitch({ db: client(), ledger: la });
    const b = await openPgKillSwitch({ db: client(), ledger: lb });
    expect([a.isActive(), b.isActive()]).toEqual([false, false]);
    const [ta, tb] = await Promise.all([a.activate('maintenance'), b.activate('maintenance')]);
    expect([ta.changed, tb.changed].filter(Boolean)).toHaveLength(1);
    expect([...la.appended, ...lb.appended]).toEqual(['kill-switch.activated']);
    expect(a.isActive() && b.isActive()).toBe(true);
    const c = await openPgKillSwitch({ db: client(), ledger: ledger() });
    expect(c.state()).toMatchObject({ active: true, reason: 'maintenance' });
    await a.release();
    // The notification reaches the others at once; the poll within KILL_SWITCH_POLL_MS at worst.
    await expect.poll(() => [b.isActive(), c.isActive()], { timeout: 3000, interval: 20 }).toEqual([false, false]);
    await Promise.all([a.close(), b.close(), c.close()]);
  });
});

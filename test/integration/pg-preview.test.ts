/**
 * The free preview's daily quota in a real PostgreSQL (one fresh database for this file), shared
 * by quota instances each on its own connection pool, as separate service instances are: the
 * salt made once so one address is one client on every instance; one claim per client per day
 * across instances, also when they claim at once; the day's capacity shared and given back by a
 * release; a crashed instance's claim freed by its lease; old days forgotten; the database away
 * answering 503 `database_unavailable` with no preview handed out. Then two real services
 * (`startService` twice on one database and one localnet): one free preview for a client across
 * both, the second 429 `preview_limit_reached`. The quota's clock is pinned throughout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_BY_PATH } from '../../src/catalog/endpoints.ts';
import { loadConfig } from '../../src/config.ts';
import { ServiceError } from '../../src/errors.ts';
import type { PaidHandlers } from '../../src/intel/handler-group.ts';
import { openPgPreviewQuota, PREVIEW_CLAIM_LEASE_MS } from '../../src/preview/pg-preview-quota.ts';
import { createPreviewCaller } from '../../src/preview/preview-caller.ts';
import type { ClaimResult, HeldClaim, PreviewQuota } from '../../src/preview/preview-quota.ts';
import { startService, type RunningService } from '../../src/service/service.ts';
import { applyMigrations } from '../../src/postgres/migrate.ts';
import { createPgClient, type PgClient } from '../../src/postgres/pg-client.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTcpFaultRelay, type TcpFaultRelay } from '../helpers/tcp-fault-relay.ts';
import { startTestLocalnet, type TestService } from '../helpers/test-service.ts';

const clock = { now: new Date('2026-11-24T12:00:00Z') };
const now = () => clock.now;
let db: TestDatabase;
const clients: PgClient[] = [];
/** One connection pool per simulated instance. */
const pool = (url = db.url, timeoutMs?: number): PgClient => {
  const c = createPgClient({ url, maxConnections: 4, queryTimeoutMs: timeoutMs, connectTimeoutMs: timeoutMs });
  clients.push(c);
  return c;
};
const quota = (maxClientsPerDay = 100, c = pool()) => openPgPreviewQuota({ db: c, maxClientsPerDay, now });

const held = async (q: PreviewQuota, ip: string): Promise<HeldClaim> => {
  const r: ClaimResult = await q.claim(ip);
  if (!r.ok) throw new Error(`expected a held claim for ${ip}, got ${r.reason}`);
  return r;
};
const refusal = async (q: PreviewQuota, ip: string): Promise<string> => {
  const r = await q.claim(ip);
  if (r.ok) throw new Error(`expected a refusal for ${ip}`);
  return r.reason;
};
/** The next day of the pinned clock, each test on a day of its own so their rows never meet. */
const nextDay = () => {
  clock.now = new Date(clock.now.getTime() + 86_400_000);
};

beforeAll(async () => {
  db = await createTestDatabase('pg-preview');
  await applyMigrations(pool());
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await db?.drop();
});

describe('the preview quota in the database, two instances', () => {
  it('one salt for all: the same address is one client on both; its preview is used on both for the day', async () => {
    nextDay();
    const [a, b] = await Promise.all([quota(), quota()]);
    const rows = await pool().query<{ salt: string }>('select salt from preview_salt');
    expect(rows).toHaveLength(1);
    await (await held(a, '203.0.113.7')).commit();
    expect(await refusal(b, '203.0.113.7')).toBe('used');
    expect(await refusal(a, '203.0.113.7')).toBe('used');
    // An IPv6 client is its /64 on every instance.
    await (await held(b, '2001:db8:1:2::1')).commit();
    expect(await refusal(a, '2001:db8:1:2:ffff::9')).toBe('used');
    expect(a.size()).toBe(2);
    // The shared rows hold hashes, never addresses.
    const stored = await pool().query<{ client_hash: string }>('select client_hash from preview_claims');
    expect(JSON.stringify(stored)).not.toContain('203.0.113.7');
    // A third instance opening later reads the same salt.
    const c = await quota();
    expect(await refusal(c, '203.0.113.7')).toBe('used');
  });

  it('a claim running on one instance is in flight on the other; a release gives it back; claims at once: one wins', async () => {
    nextDay();
    const [a, b] = await Promise.all([quota(), quota()]);
    const claim = await held(a, '198.51.100.1');
    expect(await refusal(b, '198.51.100.1')).toBe('in_flight');
    claim.release();
    await expect.poll(() => Promise.resolve(b.claim('198.51.100.1')).then((r) => (r.ok ? (r.release(), 'held') : r.reason))).toBe('held');
    for (let i = 0; i < 5; i++) {
      const ip = `198.51.100.${10 + i}`;
      const results = await Promise.all([a, b, a, b].map((q) => q.claim(ip)));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok).map((r) => (r.ok ? '' : r.reason))).toEqual(['in_flight', 'in_flight', 'in_flight']);
    }
    // The day's count is exact after the races: one row per client.
    const [day] = await pool().query<{ clients: number }>('select clients from preview_days where day = $1::date', [clock.now.toISOString().slice(0, 10)]);
    const [rows] = await pool().query<{ n: number }>('select count(*)::int as n from preview_claims where day = $1::date', [
      clock.now.toISOString().slice(0, 10),
    ]);
    expect(day!.clients).toBe(rows!.n);
    expect(rows!.n).toBe(5);
  });

  it('the capacity is shared: a place given back by a release is taken on the other instance; it frees at midnight', async () => {
    nextDay();
    const [a, b] = await Promise.all([quota(2), quota(2)]);
    await (await held(a, '192.0.2.1')).commit();
    const running = await held(b, '192.0.2.2');
    expect(await refusal(a, '192.0.2.3')).toBe('capacity');
    expect(await refusal(b, '192.0.2.3')).toBe('capacity');
    // A used client is told its preview is used, not that the day is full.
    expect(await refusal(b, '192.0.2.1')).toBe('used');
    running.release();
    await expect.poll(() => Promise.resolve(a.claim('192.0.2.3')).then((r) => (r.ok ? 'held' : r.reason))).toBe('held');
    expect(await refusal(b, '192.0.2.4')).toBe('capacity');
    expect(b.status()).toEqual({ clientsToday: 2, writable: true });
    nextDay();
    await (await held(b, '192.0.2.4')).commit();
  });

  it('a claim of an instance that died mid-preview frees itself after its lease; days before yesterday are forgotten', async () => {
    nextDay();
    const a = await quota();
    const dead = await held(a, '192.0.2.50'); // neither committed nor released in time: its instance "died"
    const b = await quota();
    expect(await refusal(b, '192.0.2.50')).toBe('in_flight');
    clock.now = new Date(clock.now.getTime() + PREVIEW_CLAIM_LEASE_MS);
    const taken = await held(b, '192.0.2.50');
    // The old claim's commit finds its row taken over: not recorded, so its preview is never answered.
    await expect(dead.commit()).rejects.toMatchObject({ code: 'service_stopped' });
    await taken.commit();
    expect(await refusal(a, '192.0.2.50')).toBe('used');
    expect(a.size()).toBe(1);
    const days = async () => (await pool().query<{ day: string }>("select to_char(day, 'YYYY-MM-DD') as day from preview_days order by day")).map((r) => r.day);
    expect(await days()).toContain(clock.now.toISOString().slice(0, 10));
    nextDay();
    nextDay();
    await b.claim('192.0.2.51');
    const today = clock.now.toISOString().slice(0, 10);
    await expect.poll(days).toEqual([today]);
    expect(await pool().query('select 1 from preview_claims where day < $1::date', [today])).toEqual([]);
  });
});

describe('the database away', () => {
  let relay: TcpFaultRelay;
  const entry = CATALOG_BY_PATH.get('/v1/smri')!;
  const attempt = (ip: string) => ({
    entry,
    query: 'mint=DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
    remoteIp: ip,
    signal: new AbortController().signal,
  });
  beforeAll(async () => {
    relay = await startTcpFaultRelay(db.port);
  });
  afterAll(async () => {
    await relay?.close();
  });

  it('a claim the database cannot take: 503 database_unavailable, the handler never runs; back again, previews work', async () => {
    nextDay();
    const url = new URL(db.url);
    url.port = new URL(relay.url).port;
    const q = await quota(100, pool(url.toString(), 800));
    let calls = 0;
    const counted = { '/v1/smri': async () => (calls++, { mint: 'm', smri: 1, components: {} }) } as unknown as PaidHandlers;
    const caller = createPreviewCaller({ handlers: counted, stopped: () => null, quota: q });
    relay.mode = 'reset';
    const err = await caller(attempt('192.0.2.80')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(503);
    expect((err as ServiceError).code).toBe('database_unavailable');
    expect(calls).toBe(0);
    expect(q.status().writable).toBe(false);
    relay.mode = 'pass';
    expect((await caller(attempt('192.0.2.80'))).status).toBe(200);
    expect(q.status().writable).toBe(true);
  });

  it('a preview whose record the database cannot take is never answered: 503 database_unavailable, and not used', async () => {
    nextDay();
    const url = new URL(db.url);
    url.port = new URL(relay.url).port;
    const q = await quota(100, pool(url.toString(), 800));
    // The database goes away while the endpoint runs: after the claim, before the record.
    const cut = {
      '/v1/smri': async () => {
        relay.mode = 'reset';
        return { mint: 'm', smri: 1, components: {} };
      },
    } as unknown as PaidHandlers;
    const reply = await createPreviewCaller({ handlers: cut, stopped: () => null, quota: q })(attempt('192.0.2.81'));
    expect(reply.status).toBe(503);
    expect(JSON.parse(String(reply.body))).toMatchObject({ error: 'database_unavailable' });
    relay.mode = 'pass';
    // The claim stays unrecorded ('claimed') until its lease frees it: the day's preview is not used.
    const rows = await pool().query<{ state: string }>('select state from preview_claims where day = $1::date', [clock.now.toISOString().slice(0, 10)]);
    expect(rows.map((r) => r.state)).toEqual(['claimed']);
  });
});

describe('two real services on one database', () => {
  let localnet: NonNullable<TestService['localnet']>;
  const services: RunningService[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    clock.now = new Date('2026-11-24T23:59:30Z');
    const started = await startTestLocalnet();
    localnet = started.localnet;
    for (let i = 0; i < 2; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'x402-pg-preview-'));
      dirs.push(dataDir);
      const argv = ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--free-rate-per-second', '0', '--database-url', db.url];
      services.push(await startService(loadConfig({}, argv), { upstreams: started.upstreams, now }));
    }
  }, 120_000);
  afterAll(async () => {
    for (const s of services) await s.close();
    await localnet?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('one free preview per client across both instances: the second instance answers 429 preview_limit_reached', async () => {
    const mint = localnet.world.mints.get('BONK')!.address;
    const [a, b] = services.map((s) => `http://127.0.0.1:${s.port}`);
    const first = await fetch(`${a}/preview/v1/smri?mint=${mint}`);
    expect(first.status, JSON.stringify(await first.clone().json())).toBe(200);
    expect((await readJson(first)).preview).toBe(true);
    const second = await fetch(`${b}/preview/v1/smri?mint=${mint}`);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('30');
    expect(await readJson(second)).toMatchObject({ error: 'preview_limit_reached', nextPreviewAt: '2026-11-25T00:00:00Z' });
    expect((await fetch(`${a}/preview/v1/epoch?rate=both`)).status).toBe(429);
    expect((await readJson(fetch(`${a}/health`))).preview).toEqual({ clientsToday: 1, writable: true });
    await expect.poll(async () => (await readJson(fetch(`${b}/health`))).preview).toEqual({ clientsToday: 1, writable: true });
  }, 60_000);
});

/**
 * The early answers' PostgreSQL stores against a real database (test/helpers/postgres.ts): the book
 * every instance shares (src/x402/stores/pg-early-answer-store.ts: outcomes, bars, the exposure in
 * flight, the day's losses, each payer's confirmed history; one admission at a time under the lock,
 * with the pending record in its transaction), and the pending settlements' list of early answers a
 * restart takes up (src/x402/stores/pg-pending-settlements.ts). Outcomes, bars, admission and held
 * shares are the book contract's, run on the file and the database alike in
 * test/integration/early-answer-stores.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyMigrations } from '../../src/postgres/migrate.ts';
import { createPgClient, type PgClient } from '../../src/postgres/pg-client.ts';
import { startExpirySweeper } from '../../src/postgres/expiry-sweeper.ts';
import type { StagedWrite } from '../../src/durable/staged-write.ts';
import type { EarlyLimits } from '../../src/x402/stores/early-bounds.ts';
import { createEarlyAnswers } from '../../src/x402/exact/early-answers.ts';
import { createEarlySettlement } from '../../src/x402/exact/early-settlement.ts';
import { EARLY_ADOPT_AFTER_MS, startEarlyAdoption } from '../../src/x402/exact/early-adoption.ts';
import type { ExactScheme } from '../../src/x402/types/exact-scheme.ts';
import { createPgEarlyAnswerStore } from '../../src/x402/stores/pg-early-answer-store.ts';
import { createPgPendingSettlements } from '../../src/x402/stores/pg-pending-settlements.ts';
import { PENDING_SETTLEMENT_TTL_MS, type PendingSettlement } from '../../src/x402/stores/pending-settlements.ts';
import type { PaymentPayload } from '../../src/x402/types/x402-types.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { earlyFailure } from '../helpers/early-failure.ts';

let db: TestDatabase;
const clients: PgClient[] = [];
const client = (): PgClient => {
  const c = createPgClient({ url: db.url, maxConnections: 2 });
  clients.push(c);
  return c;
};

beforeAll(async () => {
  db = await createTestDatabase('pg-early');
  await applyMigrations(client());
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await db?.drop();
});

const record = (early: boolean): PendingSettlement => ({
  network: 'solana:x',
  transaction: 'sig',
  payer: 'P',
  payloadSha256: 'ab'.repeat(32),
  answer: { status: 200, headers: {}, bodyBase64: '' },
  paid: { originalUrl: '/v1/tipfloor', endpoint: '/v1/tipfloor', priceUsdcUnits: 1_000 },
  recordedAt: 1,
  ...(early ? { early: { payment: { x402Version: 2, payload: { transaction: 'AA==' } } as unknown as PaymentPayload } } : {}),
});

/** A pending record's write, in the admission's transaction: notes whether it was an early answer's. */
const staged =
  (written: Map<string, boolean>, key: string) =>
  (share: unknown): StagedWrite => ({
    sql: { text: 'select 1', values: [] },
    commitAlone: async () => undefined,
    settle: (err) => {
      if (err === null) written.set(key, share !== null);
    },
  });

/** Empties the book (the tests share one database): each test of the shared book starts from nothing. */
/** The early answers over the database's book, on the test's clock `now`. */
const pgEarlyAnswers = (now: () => number) =>
  createEarlyAnswers({
    limits: { ceilingUnits: 5_000, payerCapUnits: 50_000, globalCapUnits: 10_000, lossBudgetUnits: 30_000, barMs: 60_000 },
    store: createPgEarlyAnswerStore({ db: client(), now }),
    ledger: { append: async () => ({ index: 0 }) as never },
    log: () => undefined,
    now,
  });

async function emptyBook(): Promise<void> {
  const c = client();
  for (const table of ['early_exposure', 'early_losses', 'early_trust', 'early_answers']) await c.query(`delete from ${table}`);
}

describe('early answers in PostgreSQL', () => {
  it('two instances share one global exposure and one loss budget, a new payer gets one answer across both, and a restart finds it all', async () => {
    await emptyBook();
    const written = new Map<string, boolean>();
    const limits: EarlyLimits = { ceilingUnits: 5_000, payerCapUnits: 50_000, globalCapUnits: 10_000, lossBudgetUnits: 30_000, barMs: 60_000 };
    const at = Date.now();
    const [a, b] = [createPgEarlyAnswerStore({ db: client() }), createPgEarlyAnswerStore({ db: client() })];
    const ask = (store: typeof a, key: string, payer: string) => store.admit({ key, payer, units: 1_000, feeUnits: 5_001, at }, limits, staged(written, key));
    // One payer without history on both instances at once: one early answer, both records written.
    const first = await Promise.all([ask(a, 'n1', 'new'), ask(b, 'n2', 'new')]);
    expect(first.filter((r) => 'share' in r)).toHaveLength(1);
    expect(written).toEqual(
      new Map([
        ['n1', 'share' in first[0]!],
        ['n2', 'share' in first[1]!],
      ]),
    );
    // Many payers with history at once on both: the loss budget (30,000 at 6,001 a risk) admits four in all, one already held.
    for (let i = 0; i < 12; i++) await (i % 2 ? a : b).credit(`payer${i}`, 10_000, at);
    for (let i = 0; i < 6; i++) await a.credit(`late${i}`, 10_000, at);
    const many = await Promise.all(Array.from({ length: 12 }, (_, i) => ask(i % 2 ? a : b, `m${i}`, `payer${i}`)));
    expect(many.filter((r) => 'share' in r)).toHaveLength(3);
    expect(many.filter((r) => 'refused' in r && r.refused === 'loss_budget')).toHaveLength(9);
    // Restart: a fresh store reads the same book.
    const c = createPgEarlyAnswerStore({ db: client() });
    expect(c.status(at).exposureUnits).toBe(0);
    await vi.waitUntil(() => c.status(at + 10_000).exposureUnits === 4_000, { timeout: 10_000, interval: 50 });
    // A loss on one instance counts on the other: one failure recorded, three released, and the day's
    // losses plus what is in flight still within the budget.
    const held = [...first, ...many].flatMap((r) => ('share' in r ? [r.share] : []));
    expect(await a.failed(held[0]!, earlyFailure(held[0]!.payer, at), 6_001, at + 60_000)).toEqual({ before: 0, after: 6_001 });
    for (const s of held.slice(1)) await b.release(s.key);
    const again = await Promise.all(Array.from({ length: 6 }, (_, i) => ask(i % 2 ? a : c, `r${i}`, `late${i}`)));
    expect(again.filter((r) => 'share' in r)).toHaveLength(3);
    await vi.waitUntil(() => c.status(at + 20_000).lossUnits === 6_001, { timeout: 10_000, interval: 50 });
  });

  it('the pending settlements list the early answers, with their delivered answer, and no other', async () => {
    const pending = createPgPendingSettlements({ db: client() });
    await pending.record('e1', record(true));
    await pending.record('n1', record(false));
    await pending.keepDelivered('e1', { status: 200, headers: { 'X-Service-Receipt': 'r' }, body: 'x' });
    const listed = await createPgPendingSettlements({ db: client() }).listEarly();
    expect(listed.map(([k]) => k)).toEqual(['e1']);
    expect(listed[0]![1].delivered?.headers['X-Service-Receipt']).toBe('r');
    expect(listed[0]![1].early?.payment.payload.transaction).toBe('AA==');
  });

  it('an early answer whose outcome is unknown keeps its share of the global exposure past the records lifetime (and the sweep), until it is ended', async () => {
    await emptyBook();
    let now = 1_000_000_000;
    const [book, pending] = [createPgEarlyAnswerStore({ db: client(), now: () => now }), createPgPendingSettlements({ db: client(), now: () => now })];
    // Room for one answer in flight, deployment-wide.
    const limits: EarlyLimits = { ceilingUnits: 5_000, payerCapUnits: 50_000, globalCapUnits: 1_000, lossBudgetUnits: 30_000, barMs: 60_000 };
    const key = `held-${now}`;
    // Payers with confirmed history (a new payer's share of the cap is smaller).
    for (const payer of ['left', 'another']) await book.credit(payer, 10_000, now);
    const ask = (k: string, payer: string) =>
      book.admit({ key: k, payer, units: 1_000, feeUnits: 0, at: now }, limits, (share) =>
        pending.stageRecord!(k, { ...record(share !== null), payer, recordedAt: now }),
      );
    const first = await ask(key, 'left');
    expect('share' in first).toBe(true);
    await pending.keepDelivered(key, { status: 200, headers: {}, body: 'x' });
    // Its instance stops (or its follow is stuck) past the lifetime; the others sweep meanwhile.
    now += 6 * PENDING_SETTLEMENT_TTL_MS;
    const sweeper = startExpirySweeper({ db: client(), now: () => now, intervalMs: 3_600_000 });
    await sweeper.sweep();
    sweeper.close();
    expect(await ask(`other-${now}`, 'another')).toEqual({ refused: 'global_cap' });
    // Followed to its end: the outcome written (the share released), the record ended; the room is free again.
    if ('share' in first) await book.confirmed(first.share, now);
    await pending.ended(key);
    expect('share' in (await ask(`third-${now}`, 'another'))).toBe(true);
  });

  it('a restart long after an early answer (six lifetimes of its record) follows it: its failure counted against the loss budget, its payer barred, its record ended', async () => {
    await emptyBook();
    let now = 2_000_000_000;
    const key = `late-${now}`;
    const pending = createPgPendingSettlements({ db: client(), now: () => now });
    await pending.record(key, { ...record(true), payer: 'late-payer', recordedAt: now });
    await pending.keepDelivered(key, { status: 200, headers: {}, body: 'x' });
    now += 6 * PENDING_SETTLEMENT_TTL_MS;
    const answers = pgEarlyAnswers(() => now);
    const scheme = {
      settlementStatus: async () => ({ status: 'failed', reason: 'transaction_failed', message: 'insufficient funds' }),
    } as unknown as ExactScheme;
    const restarted = createPgPendingSettlements({ db: client(), now: () => now });
    const faults: string[] = [];
    const early = createEarlySettlement({ answers, pending: restarted, fault: (what) => faults.push(what), endEveryMs: 0 });
    // Other tests' unresolved answers share the database and are followed too: at least this one.
    expect(await early.recover(() => scheme)).toBeGreaterThanOrEqual(1);
    await vi.waitUntil(async () => (await answers.store.barredUntil('late-payer')) > now, { timeout: 10_000, interval: 20 });
    await vi.waitUntil(async () => (await answers.store.outcome(key))?.status === 'failed', { timeout: 10_000, interval: 20 });
    await vi.waitUntil(async () => !(await restarted.listEarly()).some(([k]) => k === key), { timeout: 10_000, interval: 20 });
    expect(await client().query('select units::int as units from early_losses where key = $1', [key])).toEqual([{ units: 1_000 }]);
    expect(faults).toEqual([]);
  });

  it('an answer confirmed whose record a stop left unmarked is not followed again after a long stop and the sweep: its payer credited once', async () => {
    await emptyBook();
    let now = 3_000_000_000;
    const key = `done-${now}`;
    const pending = createPgPendingSettlements({ db: client(), now: () => now });
    await pending.record(key, { ...record(true), transaction: key, payer: 'done-payer', recordedAt: now });
    await pending.keepDelivered(key, { status: 200, headers: {}, body: 'x' });
    const open = () => pgEarlyAnswers(() => now);
    // This answer landed; other tests' answers left in the database fail, as in the test above.
    const scheme = {
      settlementStatus: async (_p: unknown, _r: unknown, tx: string) =>
        tx === key ? { status: 'landed' } : { status: 'failed', reason: 'transaction_failed', message: 'insufficient funds' },
    } as unknown as ExactScheme;
    const trust = async () =>
      (await client().query<{ u: number }>('select coalesce(sum(units), 0)::int as u from early_trust where payer = $1', ['done-payer']))[0]?.u;
    // Followed to its confirmation; the stop comes before its record's mark (early-ends.ts batches them).
    const lostMark = { listEarly: pending.listEarly, ended: async () => undefined };
    await createEarlySettlement({ answers: open(), pending: lostMark, fault: () => undefined }).recover(() => scheme);
    await vi.waitUntil(async () => (await trust()) === 1_000, { timeout: 10_000, interval: 20 });
    // Down six lifetimes of the outcome row, swept meanwhile; the next start finds the outcome and only marks the record.
    now += 6 * PENDING_SETTLEMENT_TTL_MS;
    const sweeper = startExpirySweeper({ db: client(), now: () => now, intervalMs: 3_600_000 });
    await sweeper.sweep();
    sweeper.close();
    const restarted = createPgPendingSettlements({ db: client(), now: () => now });
    await createEarlySettlement({ answers: open(), pending: restarted, fault: () => undefined, endEveryMs: 0 }).recover(() => scheme);
    await vi.waitUntil(async () => !(await restarted.listEarly()).some(([k]) => k === key), { timeout: 10_000, interval: 20 });
    expect(await trust()).toBe(1_000);
  });

  it("a live instance takes up a gone instance's unresolved early answer once it is old enough, once: its failure counted, its payer barred, its record ended", async () => {
    await emptyBook();
    let now = 4_000_000_000;
    const key = `gone-${now}`;
    // Written by an instance that answered early and stopped for good (it never follows it).
    const gone = createPgPendingSettlements({ db: client(), now: () => now });
    await gone.record(key, { ...record(true), transaction: key, payer: 'gone-payer', recordedAt: now });
    await gone.keepDelivered(key, { status: 200, headers: {}, body: 'x' });
    let calls = 0;
    let answer: (status: unknown) => void = () => undefined;
    const asked = new Promise((r) => {
      answer = r;
    });
    // Other tests' answers left in the database fail, as above; this one's status comes when the test says.
    const scheme = {
      settlementStatus: async (_p: unknown, _r: unknown, tx: string) => {
        if (tx !== key) return { status: 'failed', reason: 'transaction_failed', message: 'insufficient funds' };
        calls++;
        return asked;
      },
    } as unknown as ExactScheme;
    const answers = pgEarlyAnswers(() => now);
    const live = createPgPendingSettlements({ db: client(), now: () => now });
    const early = createEarlySettlement({ answers, pending: live, fault: () => undefined, endEveryMs: 0 });
    const adoption = startEarlyAdoption({ early, schemeFor: () => scheme, fault: () => undefined, now: () => now, everyMs: 3_600_000 });
    // Young: its own instance may still be following it.
    await adoption.adopt();
    expect(calls).toBe(0);
    now += EARLY_ADOPT_AFTER_MS + 1;
    expect(await adoption.adopt()).toBeGreaterThanOrEqual(1);
    await vi.waitUntil(() => calls === 1, { timeout: 10_000, interval: 20 });
    // Followed here now: the next look leaves it alone.
    await adoption.adopt();
    expect(calls).toBe(1);
    answer({ status: 'failed', reason: 'transaction_failed', message: 'insufficient funds' });
    await vi.waitUntil(async () => !(await live.listEarly()).some(([k]) => k === key), { timeout: 10_000, interval: 20 });
    adoption.stop();
    expect(await answers.store.outcome(key)).toMatchObject({ status: 'failed' });
    expect(await answers.store.barredUntil('gone-payer')).toBeGreaterThan(now);
    expect(await client().query('select units::int as units from early_losses where key = $1', [key])).toEqual([{ units: 1_000 }]);
  });
});

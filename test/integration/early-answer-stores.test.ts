/**
 * The EarlyAnswerStore contract (src/x402/stores/early-book.ts: the book of answers sent before
 * their payment confirmed), one suite run against both books, each in a place of its own: the
 * file log (early-answer-store.ts) and PostgreSQL (pg-early-answer-store.ts). What only one of
 * them does is tested beside it: the bounds over the file book in test/unit/x402/early-answers.test.ts,
 * instances sharing the database's book in test/integration/pg-early-answers.test.ts. The
 * database's totals are read in the background, so they are polled on a clock moving on.
 */
import { describe, expect, it } from 'vitest';
import type { StagedWrite } from '../../src/durable/staged-write.ts';
import { createEarlyAnswerStore, type EarlyAnswerStore } from '../../src/x402/stores/early-answer-store.ts';
import type { EarlyAdmission } from '../../src/x402/stores/early-book.ts';
import type { EarlyLimits, EarlyShare } from '../../src/x402/stores/early-bounds.ts';
import { createPgEarlyAnswerStore } from '../../src/x402/stores/pg-early-answer-store.ts';
import { STORE_KINDS, type StoreKind, useStoreBackings } from '../helpers/store-backings.ts';
import { earlyFailure } from '../helpers/early-failure.ts';

const backings = useStoreBackings('early-answer-stores');
const AT = 1_900_000_000_000;
const LIMITS: EarlyLimits = { ceilingUnits: 5_000, payerCapUnits: 50_000, globalCapUnits: 10_000, lossBudgetUnits: 30_000, barMs: 60_000 };

/** A new place for one book, and how to open it there (again: a restart, or another instance). */
const placeFor = (kind: StoreKind) =>
  backings.placeAlone<EarlyAnswerStore>(kind, {
    file: (dir) => createEarlyAnswerStore({ dir, now: () => AT }),
    postgres: (db) => createPgEarlyAnswerStore({ db, now: () => AT }),
  });

/** The settlement's pending record staged with an admission (either store's way), noting what it was told. */
function pendingRecords() {
  const written = new Map<string, boolean>();
  const record =
    (key: string) =>
    (share: EarlyShare | null): StagedWrite => ({
      sql: { text: 'select 1', values: [] },
      commitAlone: async () => undefined,
      settle: (err) => {
        if (err === null) written.set(key, share !== null);
      },
    });
  return { written, record };
}

const shareOf = (r: EarlyAdmission): EarlyShare => {
  if (!('share' in r)) throw new Error(`refused: ${r.refused}`);
  return r.share;
};
const refusalOf = (r: EarlyAdmission) => ('refused' in r ? r.refused : 'admitted');
/** A later time of the book's clock at each call: the database's totals are read again past STATUS_REFRESH_MS. */
let statusAt = AT;
const later = () => (statusAt += 1_001);

describe.each(STORE_KINDS)('the early answers’ book (%s)', (kind) => {
  it('records an outcome once per key and a bar that a later one never shortens, read again where the book is opened again', async () => {
    const open = await placeFor(kind);
    const book = open();
    const share = { key: 'k1', payer: 'P', units: 1_000, feeUnits: 5_001, trusted: false, at: AT };
    await book.confirmed(share, AT);
    expect(await book.outcome('k1')).toEqual({ status: 'confirmed' });
    expect(await book.outcome('k2')).toBeUndefined();
    expect(await book.failed({ ...share, key: 'k2' }, earlyFailure('P', AT), 6_001, AT + 60_000)).toEqual({ before: 0, after: 6_001 });
    expect(await book.failed({ ...share, key: 'k2' }, earlyFailure('P', AT), 6_001, AT + 10_000)).toBeNull();
    expect(await book.failed({ ...share, key: 'k3' }, earlyFailure('P', AT), 6_001, AT + 10_000)).toEqual({ before: 6_001, after: 12_002 });
    const again = open();
    expect(await again.outcome('k1')).toEqual({ status: 'confirmed' });
    expect(await again.outcome('k2')).toMatchObject({ status: 'failed', payer: 'P', reason: 'invalid_exact_svm_transaction_failed' });
    expect(await again.barredUntil('P')).toBe(AT + 60_000);
    expect(await again.barredUntil('Q')).toBe(0);
  });

  it('admits within the bounds with its pending record, one answer in flight for a new payer, a barred payer none', async () => {
    const book = (await placeFor(kind))();
    const { written, record } = pendingRecords();
    const ask = (key: string, payer: string, units = 1_000) => book.admit({ key, payer, units, feeUnits: 5_001, at: AT }, LIMITS, record(key));
    const first = shareOf(await ask('n1', 'new'));
    expect(first).toMatchObject({ key: 'n1', payer: 'new', trusted: false });
    expect(refusalOf(await ask('n2', 'new'))).toBe('payer_cap');
    expect(written).toEqual(
      new Map([
        ['n1', true],
        ['n2', false],
      ]),
    );
    await book.release('n1');
    shareOf(await ask('n3', 'new'));
    // A payer with confirmed history is trusted; a failure bars it.
    await book.credit('T', 10_000, AT);
    const trusted = shareOf(await ask('t1', 'T'));
    expect(trusted.trusted).toBe(true);
    await book.failed(trusted, earlyFailure('T', AT), 6_001, AT + 60_000);
    expect(refusalOf(await ask('t2', 'T'))).toBe('barred');
    await expect.poll(() => book.status(later()).exposureUnits, { timeout: 10_000, interval: 50 }).toBe(1_000);
    await expect.poll(() => book.status(later()).lossUnits, { timeout: 10_000, interval: 50 }).toBe(6_001);
  });

  it("a failure its payer is barred for forfeits the payer's confirmed history; a failure that bars nobody keeps it", async () => {
    const book = (await placeFor(kind))();
    const { record } = pendingRecords();
    const ask = (key: string, payer: string) => book.admit({ key, payer, units: 1_000, feeUnits: 5_001, at: AT }, LIMITS, record(key));
    await book.credit('B', 10_000, AT);
    await book.credit('K', 10_000, AT);
    const [b, k] = [shareOf(await ask('b1', 'B')), shareOf(await ask('k1', 'K'))];
    expect([b.trusted, k.trusted]).toEqual([true, true]);
    // B's bar ends at once (this book's clock does not move): what is left to see is its history.
    await book.failed(b, earlyFailure('B', AT), 6_001, AT);
    await book.failed(k, earlyFailure('K', AT), 1_000, 0);
    expect(shareOf(await ask('b2', 'B')).trusted).toBe(false);
    expect(shareOf(await ask('k2', 'K')).trusted).toBe(true);
  });

  it('holds a share found at start once per key, whatever the bounds say, until it is released', async () => {
    const book = (await placeFor(kind))();
    const share = { key: 'h1', payer: 'H', units: 20_000, feeUnits: 0, trusted: false, at: AT };
    await book.hold(share);
    await book.hold(share);
    await expect.poll(() => book.status(later()).exposureUnits, { timeout: 10_000, interval: 50 }).toBe(20_000);
    await book.release('h1');
    await expect.poll(() => book.status(later()).exposureUnits, { timeout: 10_000, interval: 50 }).toBe(0);
  });
});

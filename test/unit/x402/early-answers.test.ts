/**
 * The bounds of early answers (src/x402/exact/early-answers.ts) over the real file store: the ceiling,
 * one answer in flight for a payer with no history, the global cap, the bar after a failure (kept by
 * the store across a reopen), the ledger audit entry that names the receipt, the exposure given back
 * only once a loss is on record, and the pending record committed with each admission.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StagedWrite } from '../../../src/durable/staged-write.ts';
import type { LedgerDraft } from '../../../src/ledger/ledger-entry.ts';
import { createEarlyAnswers, EARLY_FAILED_EVENT, type EarlyLimits } from '../../../src/x402/exact/early-answers.ts';
import { openCommitJournal } from '../../../src/durable/commit-journal.ts';
import { createEarlyAnswerStore } from '../../../src/x402/stores/early-answer-store.ts';
import { manualClock } from '../../helpers/manual-clock.ts';

const LIMITS: EarlyLimits = { ceilingUnits: 5_000, payerCapUnits: 10_000, globalCapUnits: 25_000, lossBudgetUnits: 1_000_000, barMs: 60_000 };
const SHA = 'ab'.repeat(32);
let dir: string;
let keys = 0;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'early-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function open(clock = manualClock(1_000_000), appended: LedgerDraft[] = []) {
  const lines: string[] = [];
  const early = createEarlyAnswers({
    limits: LIMITS,
    store: createEarlyAnswerStore({ dir, now: clock.now }),
    ledger: {
      append: async (d) => {
        appended.push(d);
        return { index: appended.length - 1 } as never;
      },
    },
    log: (l) => lines.push(l),
    now: clock.now,
  });
  return { early, appended, lines, clock };
}

/** The pending records an admission committed, by key: whether each was an early answer's. */
const records = new Map<string, boolean>();
const record =
  (key: string) =>
  (share: unknown): StagedWrite => ({
    commitAlone: async () => void records.set(key, share !== null),
    settle: () => undefined,
  });
const ask = (early: ReturnType<typeof open>['early'], payer: string, units = 1_000) => {
  const key = `k${keys++}`;
  return early.admit({ key, payer, units, feeUnits: 0 }, record(key));
};

const failure = (payer: string) => ({
  network: 'solana:x',
  transaction: 'sig',
  payer,
  endpoint: '/v1/tipfloor',
  priceUsdcUnits: 1_000,
  receiptSha256: SHA,
  ledgerIndex: 7,
  reason: 'invalid_exact_svm_transaction_failed',
  message: 'failed on chain',
});

describe('early answers: admission', () => {
  it('only at or below the ceiling, for a known payer', () => {
    const { early } = open();
    expect(early.eligible('A', 5_001)).toBe(false);
    expect(early.eligible('', 1_000)).toBe(false);
    expect(early.eligible('A', 5_000)).toBe(true);
  });

  it('a payer with no confirmed payment: one answer in flight, its pending record committed with the decision', async () => {
    const { early } = open();
    const first = await ask(early, 'A');
    expect(first).not.toBeNull();
    expect(records.get(first!.share.key)).toBe(true);
    const key = `k${keys}`;
    expect(await ask(early, 'A')).toBeNull();
    // Refused, the record is still written: the call takes the confirmed path.
    expect(records.get(key)).toBe(false);
    expect(early.status()).toMatchObject({ answered: 1, answeredNewPayers: 1, refused: { payer_cap: 1 } });
    first!.release();
    first!.release();
    expect(early.status().exposureUnits).toBe(0);
    expect(await ask(early, 'A')).not.toBeNull();
  });

  it('all payers up to the global cap, new payers to their share of it', async () => {
    const { early } = open();
    // An established payer: 60,000 confirmed earns 30,000, within the payer cap of 10,000.
    early.credit('T', 60_000);
    await Promise.resolve();
    for (let i = 0; i < 12; i++) expect(await ask(early, `new${i}`), `new payer ${i}`).not.toBeNull();
    // Twelve new payers hold 12,000: their share (half of 25,000) is full.
    expect(await ask(early, 'new12')).toBeNull();
    expect(early.status().refused.new_payers).toBe(1);
    for (let i = 0; i < 10; i++) expect(await ask(early, 'T')).not.toBeNull();
    expect(await ask(early, 'T')).toBeNull();
    expect(early.status()).toMatchObject({ exposureUnits: 22_000, newPayersExposureUnits: 12_000 });
  });

  it('with the ceiling or the loss budget at 0 nothing is answered early', () => {
    for (const limits of [
      { ...LIMITS, ceilingUnits: 0 },
      { ...LIMITS, lossBudgetUnits: 0 },
    ]) {
      const early = createEarlyAnswers({ limits, store: createEarlyAnswerStore({ dir }), ledger: { append: async () => ({}) as never } });
      expect(early.eligible('A', 1)).toBe(false);
    }
  });

  it('a record that cannot be written takes nothing: the admission fails, no share held', async () => {
    const { early } = open();
    const failing = (): StagedWrite => ({ commitAlone: () => Promise.reject(new Error('disk full')), settle: () => undefined });
    await expect(early.admit({ key: 'x', payer: 'A', units: 1_000, feeUnits: 0 }, failing)).rejects.toThrow('disk full');
    expect(early.status()).toMatchObject({ exposureUnits: 0, payersExposed: 0 });
  });
});

describe('early answers: a payment that failed after its answer', () => {
  it('records it, bars the payer until the bar ends (across a reopen), names the receipt in the ledger, and only then frees the exposure', async () => {
    const clock = manualClock(1_000_000);
    const { early, appended, lines } = open(clock);
    const t = (await ask(early, 'A'))!;
    const failing = early.failed(t, failure('A'), 6_001);
    expect(early.status().exposureUnits).toBe(1_000);
    await failing;
    expect(early.status()).toMatchObject({ exposureUnits: 0, failed: 1, failedUnits: 1_000, lostUnits: 6_001, lossUnits: 6_001 });
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({ kind: 'audit', event: EARLY_FAILED_EVENT });
    expect((appended[0] as { reason: string }).reason).toContain(SHA);
    expect((appended[0] as { reason: string }).reason).not.toContain('A ');
    expect(lines.join('\n')).toContain('barred');
    expect(await early.store.outcome(t.share.key)).toMatchObject({ status: 'failed', receiptSha256: SHA, payer: 'A' });
    expect(await ask(early, 'A')).toBeNull();
    expect(early.status().refused.barred).toBe(1);
    expect(await ask(early, 'B')).not.toBeNull();

    const reopened = open(clock).early;
    expect(await ask(reopened, 'A')).toBeNull();
    expect(reopened.status().lossUnits).toBe(6_001);
    clock.advance(LIMITS.barMs + 1);
    expect(await ask(reopened, 'A')).not.toBeNull();
  });

  it('a confirmed one is recorded, frees its share and credits its payer', async () => {
    const { early } = open();
    const t = (await ask(early, 'A'))!;
    await early.confirmed(t);
    expect(await early.store.outcome(t.share.key)).toEqual({ status: 'confirmed' });
    expect(early.status()).toMatchObject({ exposureUnits: 0, confirmed: 1 });
    // 1,000 confirmed earns 500 in flight: one answer still (the first is always allowed), never two.
    expect(await ask(early, 'A')).not.toBeNull();
    expect(await ask(early, 'A')).toBeNull();
  });

  it('a confirmed one frees its share at once, before its outcome is on disk', async () => {
    const { early } = open();
    const t = (await ask(early, 'A'))!;
    const recorded = early.confirmed(t);
    // The chain confirmed it: nothing is at risk while the outcome's write is still under way.
    expect(early.status()).toMatchObject({ exposureUnits: 0, payersExposed: 0, confirmed: 1 });
    await recorded;
    expect(await early.store.outcome(t.share.key)).toEqual({ status: 'confirmed' });
  });

  it("a confirmation's rows and a confirmed-path credit are unhurried commits (they wait for company); a loss's record is not", async () => {
    const journal = openCommitJournal({ dir, unhurriedGatherMs: 600_000 });
    const store = createEarlyAnswerStore({ dir, now: () => 1_000_000, journal });
    const turn = () => new Promise((r) => setImmediate(r));
    const share = { key: 'k-unhurried', payer: 'A', units: 1_000, feeUnits: 0, trusted: false, at: 1_000_000 };
    const lost = { ...share, key: 'k-lost', payer: 'B' };
    await store.hold(share);
    await store.hold(lost);
    const confirmed = store.confirmed(share, 1_000_000);
    await turn();
    await turn();
    const credited = store.credit('A', 1_000, 1_000_000);
    await turn();
    expect(journal.stats().syncs).toBe(0);
    // The loss is recorded at once, and the confirmations ride in its write.
    await store.failed(lost, { status: 'failed', ...failure('B'), failedAt: 1_000_000 }, 1_000, 1_060_000);
    await Promise.all([confirmed, credited]);
    expect(journal.stats()).toMatchObject({ commits: 3, syncs: 1 });
    expect(await store.outcome('k-unhurried')).toEqual({ status: 'confirmed' });
    await journal.close();
  });

  it('the status shows the median time a confirmed answer held its share', async () => {
    const { early, clock } = open();
    expect(early.status().heldMsP50).toBeNull();
    for (const ms of [900, 100, 300]) {
      const t = (await ask(early, 'A'))!;
      clock.advance(ms);
      await early.confirmed(t);
    }
    expect(early.status().heldMsP50).toBe(300);
  });

  it('a held share (found at start) counts against the bounds whatever they say', async () => {
    const { early, clock } = open();
    early.hold({ key: 'h1', payer: 'A', units: 10_000, feeUnits: 0, trusted: false, at: clock.now() });
    expect(await ask(early, 'A')).toBeNull();
    early.hold({ key: 'h2', payer: 'B', units: 20_000, feeUnits: 0, trusted: true, at: clock.now() });
    early.hold({ key: 'h2', payer: 'B', units: 20_000, feeUnits: 0, trusted: true, at: clock.now() });
    expect(early.status().exposureUnits).toBe(30_000);
    expect(await ask(early, 'C')).toBeNull();
  });
});

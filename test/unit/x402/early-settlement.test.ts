/**
 * The early path's run (src/x402/exact/early-settlement.ts) over the real bounds and file
 * store, with a scheme whose node accepts the transaction at once and lands it when the test says.
 * What it pins: a share is held only while an answer that went out is at risk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HttpReply } from '../../../src/errors.ts';
import { createEarlyAnswers, type EarlyLimits } from '../../../src/x402/exact/early-answers.ts';
import { createEarlySettlement } from '../../../src/x402/exact/early-settlement.ts';
import { createEarlyAnswerStore } from '../../../src/x402/stores/early-answer-store.ts';
import { createPendingSettlements, PENDING_SETTLEMENT_TTL_MS } from '../../../src/x402/stores/pending-settlements.ts';
import { openPaymentStores } from '../../../src/service/storage.ts';
import type { ExactScheme } from '../../../src/x402/types/exact-scheme.ts';
import type { SettleResult } from '../../../src/x402/types/scheme-facilitator.ts';
import type { PaidResource } from '../../../src/x402/types/paid-call.ts';
import type { PaymentPayload } from '../../../src/x402/types/x402-types.ts';
import { manualClock } from '../../helpers/manual-clock.ts';

const LIMITS: EarlyLimits = { ceilingUnits: 5_000, payerCapUnits: 10_000, globalCapUnits: 25_000, lossBudgetUnits: 1_000_000, barMs: 60_000 };
const TX = 'sig-1';
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'early-run-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A scheme whose node accepts at once; the settlement resolves when `land` is called. */
function acceptingScheme() {
  let land: (r: SettleResult) => void = () => undefined;
  const landed = new Promise<SettleResult>((r) => {
    land = r;
  });
  const scheme = {
    async settle(_p: unknown, _r: unknown, _s: unknown, beforeBroadcast?: (tx: string) => Promise<void>, onAccepted?: (tx: string) => void) {
      await beforeBroadcast?.(TX);
      onAccepted?.(TX);
      return landed;
    },
  } as unknown as ExactScheme;
  return { scheme, land: (success: boolean) => land({ success, transaction: TX, network: 'solana:x' }) };
}

function setup() {
  const clock = manualClock(1_000_000);
  const answers = createEarlyAnswers({
    limits: LIMITS,
    store: createEarlyAnswerStore({ dir, now: clock.now }),
    ledger: { append: async () => ({ index: 0 }) as never },
    log: () => undefined,
    now: clock.now,
  });
  const early = createEarlySettlement({ answers, pending: { listEarly: async () => [], ended: async () => undefined }, fault: () => undefined });
  const call = { key: 'k1', payment: {} as PaymentPayload, requirements: {} as never, signal: new AbortController().signal };
  const paid = { endpoint: '/v1/tipfloor', priceUsdcUnits: 1_000 } as PaidResource;
  const admit = () =>
    answers.admit({ key: 'k1', payer: 'A', units: 1_000, feeUnits: 0 }, () => ({ commitAlone: async () => undefined, settle: () => undefined }));
  return { answers, early, call, paid, admit };
}

describe('early settlement: the share follows the answer', () => {
  it('an answer that could not be made (its commit failed) holds no share: nothing went out, nothing is at risk', async () => {
    const { answers, early, call, paid, admit } = setup();
    const { scheme } = acceptingScheme();
    const deliver = (): Promise<HttpReply> => Promise.reject(new Error('ledger append failed: disk full'));
    await expect(early.run(scheme, call, paid, admit, deliver)).rejects.toThrow('disk full');
    expect(answers.status()).toMatchObject({ exposureUnits: 0, payersExposed: 0 });
    // The payer's one early answer in flight is free again.
    expect(
      await answers.admit({ key: 'k2', payer: 'A', units: 1_000, feeUnits: 0 }, () => ({ commitAlone: async () => undefined, settle: () => undefined })),
    ).not.toBeNull();
  });

  it('an answer that went out holds its share until its payment lands', async () => {
    const { answers, early, call, paid, admit } = setup();
    const { scheme, land } = acceptingScheme();
    const run = await early.run(scheme, call, paid, admit, async () => ({ status: 200, body: '{}' }) as HttpReply);
    expect('reply' in run).toBe(true);
    expect(answers.status().exposureUnits).toBe(1_000);
    land(true);
    await expect.poll(() => answers.status().exposureUnits).toBe(0);
  });
});

/** The settlement record of an early answer of payer A, recorded at `at` (not yet delivered). */
function earlyRecord(at: number, trusted: boolean) {
  return {
    network: 'solana:x',
    transaction: TX,
    payer: 'A',
    payloadSha256: 'p',
    answer: { status: 200, headers: {}, body: '{}' },
    paid: { endpoint: '/v1/tipfloor', priceUsdcUnits: 1_000 } as PaidResource,
    recordedAt: at,
    early: { payment: { accepted: {} } as PaymentPayload, feeUnits: 0, trusted },
  };
}

/** An early answer a stop left: its record says early and delivered, nothing says how it ended. */
function leftByStop(dir_: string, status: { status: 'failed'; reason: string; message: string; neverLanded?: boolean }) {
  const clock = manualClock(1_000_000);
  const answers = createEarlyAnswers({
    limits: LIMITS,
    store: createEarlyAnswerStore({ dir: dir_, now: clock.now }),
    ledger: { append: async () => ({ index: 0 }) as never },
    log: () => undefined,
    now: clock.now,
  });
  const record = { ...earlyRecord(clock.now(), true), delivered: { status: 200, headers: {}, body: '{}' } };
  const steps: string[] = [];
  const scheme = {
    async rebroadcast(_p: PaymentPayload, tx: string) {
      steps.push(`rebroadcast ${tx}`);
    },
    async settlementStatus(_p: unknown, _r: unknown, tx: string) {
      steps.push(`status ${tx}`);
      return status;
    },
  } as unknown as ExactScheme;
  const early = createEarlySettlement({ answers, pending: { listEarly: async () => [['k1', record]], ended: async () => undefined }, fault: () => undefined });
  return { answers, early, scheme, steps };
}

describe('early settlement: after a stop', () => {
  it('sends the recorded transaction again before asking the chain; never landed: a loss against the budget, the payer not barred', async () => {
    const { answers, early, scheme, steps } = leftByStop(dir, { status: 'failed', reason: 'blockhash_expired', message: 'expired', neverLanded: true });
    expect(await early.recover(() => scheme)).toBe(1);
    await expect.poll(() => answers.status().failed).toBe(1);
    expect(steps).toEqual([`rebroadcast ${TX}`, `status ${TX}`]);
    // The share is given back once the loss's rows are written, a moment after the failure is counted.
    await expect.poll(() => answers.status().exposureUnits).toBe(0);
    expect(answers.status()).toMatchObject({ lossUnits: 1_000 });
    expect(await answers.store.barredUntil('A')).toBe(0);
  });

  it('failed on chain after a stop: the payer is barred as always', async () => {
    const { answers, early, scheme } = leftByStop(dir, { status: 'failed', reason: 'transaction_failed', message: 'insufficient funds' });
    await early.recover(() => scheme);
    await expect.poll(() => answers.status().failed).toBe(1);
    expect(await answers.store.barredUntil('A')).toBeGreaterThan(0);
  });
});

describe('early settlement: after a long stop', () => {
  it('an early answer recorded long before the restart (past the records lifetime) is still followed: its loss counted, its payer barred, its record ended', async () => {
    const clock = manualClock(1_000_000);
    const first = createPendingSettlements({ dir, now: clock.now });
    await first.record('k-old', earlyRecord(clock.now(), false));
    await first.keepDelivered('k-old', { status: 200, headers: {}, body: '{}' });
    // The service stops, and starts again an hour later: six lifetimes of the record.
    clock.advance(6 * PENDING_SETTLEMENT_TTL_MS);
    const pending = createPendingSettlements({ dir, now: clock.now });
    const answers = createEarlyAnswers({
      limits: LIMITS,
      store: createEarlyAnswerStore({ dir, now: clock.now }),
      ledger: { append: async () => ({ index: 0 }) as never },
      log: () => undefined,
      now: clock.now,
    });
    const scheme = {
      settlementStatus: async () => ({ status: 'failed', reason: 'transaction_failed', message: 'insufficient funds' }),
    } as unknown as ExactScheme;
    const early = createEarlySettlement({ answers, pending, fault: () => undefined, endEveryMs: 0 });
    expect(await early.recover(() => scheme)).toBe(1);
    await expect.poll(() => answers.status().failed).toBe(1);
    expect(answers.status()).toMatchObject({ lossUnits: 1_000 });
    expect(await answers.store.barredUntil('A')).toBeGreaterThan(clock.now());
    // Its outcome written, the record is ended: the next start does not follow it (nor count it) again.
    await expect.poll(() => pending.get('k-old')?.early?.ended).toBe(true);
    expect(await createPendingSettlements({ dir, now: clock.now }).listEarly()).toEqual([]);
  });

  it('an answer whose outcome was written but whose record a stop left unmarked is not followed again after a long stop (no second credit)', async () => {
    const clock = manualClock(1_000_000);
    /** The stores as the service opens them (storage.ts): the book keeps an outcome while its record is unresolved. */
    const open = () => {
      const files = { kind: 'files', database: null, where: dir, journal: null, close: async () => undefined } as const;
      const { pending, earlyStore } = openPaymentStores(files, { dataDir: dir, settleTimeoutMs: 1_000 }, clock.now);
      if (!pending) throw new Error('the files open their settlement records');
      const answers = createEarlyAnswers({
        limits: LIMITS,
        store: earlyStore,
        ledger: { append: async () => ({ index: 0 }) as never },
        log: () => undefined,
        now: clock.now,
      });
      return { pending, answers };
    };
    const first = open();
    await first.pending.record('k-done', earlyRecord(clock.now(), false));
    await first.pending.keepDelivered('k-done', { status: 200, headers: {}, body: '{}' });
    const landed = { settlementStatus: async () => ({ status: 'landed' }) } as unknown as ExactScheme;
    // Followed to its confirmation; the stop comes before its record's mark (early-ends.ts batches them).
    const lostMark = { listEarly: first.pending.listEarly, ended: async () => undefined };
    expect(await createEarlySettlement({ answers: first.answers, pending: lostMark, fault: () => undefined }).recover(() => landed)).toBe(1);
    await expect.poll(() => first.answers.status().confirmed).toBe(1);
    // Down six lifetimes of the outcome row; the next start finds the outcome and only marks the record.
    clock.advance(6 * PENDING_SETTLEMENT_TTL_MS);
    const next = open();
    const early = createEarlySettlement({ answers: next.answers, pending: next.pending, fault: () => undefined, endEveryMs: 0 });
    expect(await early.recover(() => landed)).toBe(0);
    await expect.poll(async () => (await next.pending.get('k-done'))?.early?.ended).toBe(true);
    expect(next.answers.status()).toMatchObject({ confirmed: 0, exposureUnits: 0 });
    expect(await next.answers.store.outcome('k-done')).toEqual({ status: 'confirmed' });
  });
});

/**
 * The loss budget and earned trust of early answers over time (src/x402/stores/early-bounds.ts, the
 * file book of src/x402/stores/early-book.ts), on an injected clock: an attacker rotating fresh keys
 * round after round, each taking an early answer and letting its payment fail, never brings a
 * rolling day's losses above the budget, gets at most one early answer per key, and cannot stop an
 * established payer's early answers; the loss that reaches the budget is logged and audited, and
 * early answers come back when the window rolls, across a reopen of the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StagedWrite } from '../../../src/durable/staged-write.ts';
import type { LedgerDraft } from '../../../src/ledger/ledger-entry.ts';
import { createEarlyAnswers, EARLY_BUDGET_EVENT, type EarlyLimits, type EarlyTicket } from '../../../src/x402/exact/early-answers.ts';
import { createEarlyAnswerStore } from '../../../src/x402/stores/early-answer-store.ts';
import { LOSS_WINDOW_MS } from '../../../src/x402/stores/early-bounds.ts';
import { manualClock } from '../../helpers/manual-clock.ts';

const PRICE = 1_000;
/** The official client's fee (10,001 lamports) at $500 a SOL. */
const FEE = 5_001;
const LIMITS: EarlyLimits = { ceilingUnits: 5_000, payerCapUnits: 50_000, globalCapUnits: 1_000_000, lossBudgetUnits: 200_000, barMs: 86_400_000 };
const MAX_RISK = 5_000 + 10_000;
const ROUND_MS = 10 * 60_000;
/** Rounds of ten minutes: past one day, so the window rolls during the attack. */
const ROUNDS = 160;
let dir: string;
let n = 0;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'early-budget-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const record = (): StagedWrite => ({ commitAlone: async () => undefined, settle: () => undefined });

function open(clock: ReturnType<typeof manualClock>, appended: LedgerDraft[] = [], lines: string[] = [], limits = LIMITS) {
  const early = createEarlyAnswers({
    limits,
    store: createEarlyAnswerStore({ dir, now: clock.now }),
    ledger: {
      append: async (d) => {
        appended.push(d);
        return { index: appended.length - 1 } as never;
      },
    },
    log: (l) => lines.push(l),
    maxRiskUnits: MAX_RISK,
    now: clock.now,
  });
  return { early, appended, lines };
}

const ask = (early: ReturnType<typeof open>['early'], payer: string) => early.admit({ key: `k${n++}`, payer, units: PRICE, feeUnits: FEE }, record);

const failWith = (early: ReturnType<typeof open>['early'], t: EarlyTicket) =>
  early.failed(
    t,
    {
      network: 'solana:x',
      transaction: `tx-${t.share.key}`,
      payer: t.payer,
      endpoint: '/v1/tipfloor',
      priceUsdcUnits: PRICE,
      receiptSha256: null,
      ledgerIndex: null,
      reason: 'invalid_exact_svm_transaction_failed',
      message: 'drained',
    },
    PRICE + FEE,
  );

/** Losses recorded in the window ending at `now`, from the test's own log of failures. */
const dayLoss = (losses: ReadonlyArray<{ at: number; units: number }>, now: number) =>
  losses.filter((l) => l.at > now - LOSS_WINDOW_MS).reduce((a, l) => a + l.units, 0);

describe('early answers over a rolling day', () => {
  it('fresh keys rotated over 160 rounds: a day of losses never above the budget, one early answer per key, an established payer unaffected', async () => {
    const clock = manualClock(1_800_000_000_000);
    const { early, appended } = open(clock);
    // The established payer paid 100,000 and saw it confirmed: 50,000 of its own may be in flight.
    early.credit('honest', 100_000);
    const losses: Array<{ at: number; units: number }> = [];
    const perKey = new Map<string, number>();
    let honestEarly = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Five fresh keys, three calls each at once, every early answer's payment fails.
      const taken: EarlyTicket[] = [];
      for (let k = 0; k < 5; k++) {
        const key = `attacker-${round}-${k}`;
        for (let c = 0; c < 3; c++) {
          const t = await ask(early, key);
          if (t) taken.push(t);
          perKey.set(key, (perKey.get(key) ?? 0) + (t ? 1 : 0));
        }
      }
      // Meanwhile the honest payer's calls are answered early and confirmed.
      const honest = await Promise.all(Array.from({ length: 5 }, () => ask(early, 'honest')));
      honestEarly += honest.filter((t) => t !== null).length;
      for (const t of honest) if (t) await early.confirmed(t);
      for (const t of taken) {
        await failWith(early, t);
        losses.push({ at: clock.now(), units: PRICE + FEE });
      }
      expect(dayLoss(losses, clock.now())).toBeLessThanOrEqual(LIMITS.lossBudgetUnits);
      expect(early.status().lossUnits).toBe(dayLoss(losses, clock.now()));
      clock.advance(ROUND_MS);
    }
    expect(Math.max(...perKey.values())).toBe(1);
    // Keys without history may lose at most half the budget: the honest payer kept every call early.
    expect(Math.max(...losses.map((_, i) => dayLoss(losses.slice(0, i + 1), losses[i]!.at)))).toBeLessThanOrEqual(LIMITS.lossBudgetUnits / 2);
    expect(honestEarly).toBe(ROUNDS * 5);
    expect(early.status()).toMatchObject({ newPayersStopped: expect.any(Boolean), budgetReached: false });
    expect(early.status().refused.new_payers).toBeGreaterThan(0);
    // Over 160 rounds (27 h) the window rolled: attackers got answers again once it did, never more than it allows.
    expect(losses.length).toBeGreaterThan(Math.floor(LIMITS.lossBudgetUnits / 2 / (PRICE + FEE)));
    expect(appended.filter((e) => e.kind === 'audit' && e.event === EARLY_BUDGET_EVENT)).toEqual([]);
  });

  it('the budget reached: log line, ledger audit entry, /health field; early answers stop for everyone until the window rolls, across a reopen', async () => {
    const clock = manualClock(1_800_000_000_000);
    const appended: LedgerDraft[] = [];
    const lines: string[] = [];
    const { early } = open(clock, appended, lines);
    // Established payers who turn: each fails as many early answers as its history allows.
    let payer = 0;
    for (;;) {
      const name = `turned-${payer++}`;
      early.credit(name, 20_000);
      const held = (await Promise.all(Array.from({ length: 10 }, () => ask(early, name)))).filter((t) => t !== null);
      if (held.length === 0) break;
      for (const t of held) await failWith(early, t);
      clock.advance(60_000);
    }
    const status = early.status();
    expect(status.lossUnits).toBeLessThanOrEqual(LIMITS.lossBudgetUnits);
    expect(status.budgetReached).toBe(true);
    expect(status.refused.loss_budget).toBeGreaterThan(0);
    const events = appended.filter((e) => e.kind === 'audit' && e.event === EARLY_BUDGET_EVENT);
    expect(events).toHaveLength(1);
    expect(lines.some((l) => l.includes('reached the loss budget'))).toBe(true);

    // A restart keeps the day's losses: still stopped.
    const reopened = open(clock).early;
    expect(reopened.status()).toMatchObject({ budgetReached: true, lossUnits: status.lossUnits });
    reopened.credit('fresh-honest', 50_000);
    expect(await ask(reopened, 'fresh-honest')).toBeNull();
    // The window rolls: early answers are back.
    clock.advance(LOSS_WINDOW_MS);
    expect(reopened.status()).toMatchObject({ budgetReached: false, lossUnits: 0 });
    expect(await ask(reopened, 'fresh-honest')).not.toBeNull();
  });

  it('a payer whose history is paid once loses us one allowance, not one per bar: a failure it is barred for forfeits its history', async () => {
    const clock = manualClock(1_800_000_000_000);
    // A budget and caps that do not bind: only the payer's own allowance limits it.
    const { early } = open(clock, [], [], { ...LIMITS, lossBudgetUnits: 100_000_000, globalCapUnits: 100_000_000 });
    early.credit('turned', 100_000);
    let lostUnits = 0;
    const ROUNDS_OF_BARS = 10;
    for (let round = 0; round < ROUNDS_OF_BARS; round++) {
      const held: EarlyTicket[] = [];
      for (let t = await ask(early, 'turned'); t; t = await ask(early, 'turned')) held.push(t);
      for (const t of held) await failWith(early, t);
      lostUnits += held.length * PRICE;
      // Its bar ends; its 100,000 of history is still inside the 30-day window.
      clock.advance(LIMITS.barMs + 1);
    }
    // Half its history once, then one answer per bar as a payer starting over (the one every payer gets).
    expect(lostUnits).toBeLessThanOrEqual(100_000 / 2 + (ROUNDS_OF_BARS - 1) * PRICE);
    // A loss that is not the payer's doing (our stop before the send: no bar) forfeits nothing.
    early.credit('kept', 100_000);
    const [t] = [await ask(early, 'kept')];
    await early.failed(
      t!,
      {
        network: 'solana:x',
        transaction: 'tx',
        payer: 'kept',
        endpoint: '/v1/tipfloor',
        priceUsdcUnits: PRICE,
        receiptSha256: null,
        ledgerIndex: null,
        reason: 'expired',
        message: 'our stop',
      },
      PRICE,
      false,
    );
    const again: EarlyTicket[] = [];
    for (let a = await ask(early, 'kept'); a; a = await ask(early, 'kept')) again.push(a);
    expect(again).toHaveLength(50);
  });

  it("a payer's allowance grows with its confirmed value of the last 30 days, up to the payer cap", async () => {
    const clock = manualClock(1_800_000_000_000);
    // A budget that does not bind here: 50 answers in flight risk 300,050.
    const { early } = open(clock, [], [], { ...LIMITS, lossBudgetUnits: 1_000_000 });
    const inFlight = async (payer: string): Promise<number> => {
      const held: EarlyTicket[] = [];
      for (let t = await ask(early, payer); t; t = await ask(early, payer)) held.push(t);
      for (const t of held) t.release();
      return held.length;
    };
    expect(await inFlight('p')).toBe(1);
    early.credit('p', 10_000);
    expect(await inFlight('p')).toBe(5);
    early.credit('p', 90_000);
    expect(await inFlight('p')).toBe(50);
    early.credit('p', 1_000_000);
    expect(await inFlight('p')).toBe(LIMITS.payerCapUnits / PRICE);
    clock.advance(31 * 86_400_000);
    expect(await inFlight('p')).toBe(1);
  });
});

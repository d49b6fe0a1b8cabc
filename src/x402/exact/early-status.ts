/**
 * What /health shows of early answers (`earlyAnswers`, docs/payments.md#early-answers): the
 * settings, what the book holds now (the deployment's with PostgreSQL: exposure, the day's losses),
 * and this instance's counts since start (answers, outcomes, refusals by bound, how long a
 * confirmed answer's share was held).
 */
import { type EarlyLimits, type EarlyRefusal, type EarlyShare, NEW_PAYER_SHARE, TRUST_SHARE, TRUST_WINDOW_DAYS } from '../stores/early-bounds.ts';
import type { EarlyAnswerStore } from '../stores/early-book.ts';

/** Confirmed early answers whose holding time the status's median is taken over (the newest). */
export const EARLY_HELD_SAMPLES = 256;

export interface EarlyStatus {
  readonly ceilingUnits: number;
  readonly payerCapUnits: number;
  readonly globalCapUnits: number;
  readonly lossBudgetUnits: number;
  readonly barSeconds: number;
  /** 'instance': this process's bounds; 'database': every instance on the database shares them. */
  readonly scope: 'instance' | 'database';
  /** A payer may have this share of its confirmed value of the last `trustWindowDays` in flight; new payers together this share of the caps. */
  readonly trustShare: number;
  readonly trustWindowDays: number;
  readonly newPayerShare: number;
  /** SOL's price (USD) at which failed transactions' fees count as losses. */
  readonly solPriceUsd: number | null;
  /** Value, and risk (value plus fees), of early answers whose payment is neither confirmed nor failed. */
  readonly exposureUnits: number;
  readonly exposureRiskUnits: number;
  readonly payersExposed: number;
  readonly newPayersExposureUnits: number;
  /** Losses of the last day (answers and fees), all payers' and those of payers without history. */
  readonly lossUnits: number;
  readonly newPayersLossUnits: number;
  /** The day's losses leave no room for one more early answer: early answers stop until the window rolls. */
  readonly budgetReached: boolean;
  /** Likewise for payers without confirmed history (their share of the budget). */
  readonly newPayersStopped: boolean;
  readonly answered: number;
  readonly answeredNewPayers: number;
  readonly confirmed: number;
  readonly failed: number;
  readonly failedUnits: number;
  /** What the failures lost, fees included. */
  readonly lostUnits: number;
  /** Calls that were not answered early, by the bound that said no. */
  readonly refused: Readonly<Record<EarlyRefusal, number>>;
  /**
   * Median time (ms) from admission to confirmation of the newest confirmed early answers (null
   * before any): how long each one's share counts against its payer's allowance.
   */
  readonly heldMsP50: number | null;
}

/** The median of the samples taken so far (at most the buffer's length), or null before any. */
function heldMedian(samples: Float64Array, count: number): number | null {
  if (count === 0) return null;
  const taken = samples.slice(0, Math.min(count, samples.length)).sort();
  return Math.round(taken[taken.length >> 1]!);
}

/** The counters of one instance and the status built from them and the book. */
export function createEarlyStatus(config: {
  readonly limits: EarlyLimits;
  readonly store: Pick<EarlyAnswerStore, 'status' | 'scope'>;
  readonly now: () => number;
  readonly maxRiskUnits: number;
  readonly solPriceUsd: number | null;
}) {
  const { limits, store, now } = config;
  const counts = { answered: 0, answeredNewPayers: 0, confirmed: 0, failed: 0, failedUnits: 0, lostUnits: 0 };
  const refused: Record<EarlyRefusal, number> = { barred: 0, payer_cap: 0, global_cap: 0, loss_budget: 0, new_payers: 0 };
  const held = new Float64Array(EARLY_HELD_SAMPLES);
  let heldCount = 0;
  // Reached: not even the riskiest early answer (the ceiling's price, the dearest fee) fits in what the day's losses leave.
  const budgetReached = (loss: number): boolean => loss + config.maxRiskUnits > limits.lossBudgetUnits;
  const newPayersStopped = (loss: number): boolean => loss + config.maxRiskUnits > limits.lossBudgetUnits * NEW_PAYER_SHARE;

  return {
    budgetReached,
    newPayersStopped,
    refused: (reason: EarlyRefusal) => void refused[reason]++,
    answered(share: EarlyShare) {
      counts.answered++;
      if (!share.trusted) counts.answeredNewPayers++;
    },
    confirmed(share: EarlyShare) {
      counts.confirmed++;
      held[heldCount++ % EARLY_HELD_SAMPLES] = Math.max(0, now() - share.at);
    },
    failed(share: EarlyShare, lossUnits: number) {
      counts.failed++;
      counts.failedUnits += share.units;
      counts.lostUnits += lossUnits;
    },
    status(): EarlyStatus {
      const book = store.status(now());
      return {
        ceilingUnits: limits.ceilingUnits,
        payerCapUnits: limits.payerCapUnits,
        globalCapUnits: limits.globalCapUnits,
        lossBudgetUnits: limits.lossBudgetUnits,
        barSeconds: Math.round(limits.barMs / 1000),
        scope: store.scope,
        trustShare: TRUST_SHARE,
        trustWindowDays: TRUST_WINDOW_DAYS,
        newPayerShare: NEW_PAYER_SHARE,
        solPriceUsd: config.solPriceUsd,
        exposureUnits: book.exposureUnits,
        exposureRiskUnits: book.exposureRisk,
        payersExposed: book.payersExposed,
        newPayersExposureUnits: book.newExposureUnits,
        lossUnits: book.lossUnits,
        newPayersLossUnits: book.newLossUnits,
        budgetReached: budgetReached(book.lossUnits),
        newPayersStopped: newPayersStopped(book.newLossUnits),
        ...counts,
        refused: { ...refused },
        heldMsP50: heldMedian(held, heldCount),
      };
    },
  };
}

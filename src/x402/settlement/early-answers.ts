/**
 * The bounds of early answers (docs/payments.md#early-answers): a paid call priced at or below the
 * ceiling may be answered once its payment is verified and the node accepted the transaction,
 * before it is confirmed. What such answers put at risk is bounded here: the value of a payer's
 * early answers not yet confirmed stays within the per-payer cap, all payers' within the global
 * cap; past either the call waits for confirmation as any other. A payment that fails after its
 * early answer is recorded durably, its payer barred from early answers for the bar time, and a
 * ledger audit entry names the receipt whose payment failed; the answer's own entry stays as it is.
 */
import { setMaxListeners } from 'node:events';
import type { Ledger } from '../../trust/ledger.ts';
import type { EarlyAnswerStore, EarlyFailure } from '../state/early-answer-store.ts';

/** Defaults of the options, in token units (6 decimals: 5000 = $0.005). */
export const EARLY_CEILING_UNITS = 5_000;
export const EARLY_PAYER_CAP_UNITS = 10_000;
export const EARLY_GLOBAL_CAP_UNITS = 1_000_000;
export const EARLY_BAR_SECONDS = 86_400;
/** The ledger event of a payment that failed after its early answer. */
export const EARLY_FAILED_EVENT = 'payment.failed-after-answer';
/** Confirmed early answers whose holding time the status's median is taken over (the newest). */
export const EARLY_HELD_SAMPLES = 256;

export interface EarlyLimits {
  /** Highest price answered early; 0 turns early answers off. */
  readonly ceilingUnits: number;
  readonly payerCapUnits: number;
  readonly globalCapUnits: number;
  readonly barMs: number;
}

/** One early answer's share of the exposure, held until its payment is confirmed or failed. */
export interface EarlyTicket {
  readonly payer: string;
  readonly units: number;
  /** When the share was taken (ms, the bounds' clock). */
  readonly since: number;
  /** Gives the share back; only the first call counts. */
  release(): void;
}

/** What /health shows. */
export interface EarlyStatus {
  readonly ceilingUnits: number;
  readonly payerCapUnits: number;
  readonly globalCapUnits: number;
  readonly barSeconds: number;
  /** Value of early answers whose payment is not confirmed yet, and how many payers it is spread over. */
  readonly exposureUnits: number;
  readonly payersExposed: number;
  readonly answered: number;
  readonly confirmed: number;
  readonly failed: number;
  readonly failedUnits: number;
  /**
   * Median time (ms) from admission to confirmation of the newest confirmed early answers (null
   * before any): how long each one's share counts against its payer's cap.
   */
  readonly heldMsP50: number | null;
}

export interface EarlyAnswers {
  /** A ticket when a call of this payer at this price may be answered early now, else null (today's path). */
  admit(payer: string, priceUnits: number): Promise<EarlyTicket | null>;
  /** The share of an early answer already sent (found unresolved at start): held whatever the caps say. */
  hold(payer: string, units: number): EarlyTicket;
  confirmed(key: string, ticket: EarlyTicket): Promise<void>;
  /** Records the failure, bars the payer, logs it in the ledger, then gives the share back; every step is tried, faults reported. */
  failed(key: string, ticket: EarlyTicket, failure: Omit<EarlyFailure, 'status' | 'failedAt'>): Promise<void>;
  readonly store: EarlyAnswerStore;
  /** Aborted at close: the background confirmations stop (a restart takes them up again). */
  readonly signal: AbortSignal;
  status(): EarlyStatus;
  close(): void;
}

export interface EarlyAnswersConfig {
  readonly limits: EarlyLimits;
  readonly store: EarlyAnswerStore;
  readonly ledger: Pick<Ledger, 'append'>;
  /** Bookkeeping faults; default stderr. */
  readonly fault?: (what: string, err: unknown) => void;
  readonly log?: (line: string) => void;
  readonly now?: () => number;
}

/** The ledger reason of a failure: public, so the receipt and the reason code, never the payer. */
function ledgerReason(f: Omit<EarlyFailure, 'status' | 'failedAt'>): string {
  const receipt = f.receiptSha256 ? `receipt ${f.receiptSha256} (ledger entry ${f.ledgerIndex ?? 'unknown'})` : 'an answer sent without a receipt';
  return `${receipt}: its payment on ${f.network} failed after the answer (${f.reason.slice(0, 64)})`;
}

/** The median of the samples taken so far (at most the buffer's length), or null before any. */
function heldMedian(samples: Float64Array, count: number): number | null {
  if (count === 0) return null;
  const taken = samples.slice(0, Math.min(count, samples.length)).sort();
  return Math.round(taken[taken.length >> 1]!);
}

/** Creates the bounds over `store` (files or the database). */
export function createEarlyAnswers(config: EarlyAnswersConfig): EarlyAnswers {
  const { limits, store } = config;
  const now = config.now ?? Date.now;
  const log = config.log ?? ((line: string) => console.error(line));
  const fault = config.fault ?? ((what: string, err: unknown) => log(`early answers: ${what}: ${err instanceof Error ? err.message : String(err)}`));
  const byPayer = new Map<string, number>();
  const bars = new Map<string, number>();
  const counts = { answered: 0, confirmed: 0, failed: 0, failedUnits: 0 };
  let total = 0;
  const closing = new AbortController();
  // Every settlement waiting on the chain listens for the close and drops its listener when done:
  // more than Node's 10 at once is load, not a leak.
  setMaxListeners(0, closing.signal);
  const held = new Float64Array(EARLY_HELD_SAMPLES);
  let heldCount = 0;

  function ticket(payer: string, units: number): EarlyTicket {
    byPayer.set(payer, (byPayer.get(payer) ?? 0) + units);
    total += units;
    let holding = true;
    return {
      payer,
      units,
      since: now(),
      release() {
        if (!holding) return;
        holding = false;
        total -= units;
        const left = (byPayer.get(payer) ?? 0) - units;
        if (left > 0) byPayer.set(payer, left);
        else byPayer.delete(payer);
      },
    };
  }

  async function barred(payer: string): Promise<boolean> {
    const known = bars.get(payer);
    if (known !== undefined && known > now()) return true;
    const until = await store.barredUntil(payer);
    if (until > now()) bars.set(payer, until);
    return until > now();
  }

  const fits = (payer: string, units: number): boolean => (byPayer.get(payer) ?? 0) + units <= limits.payerCapUnits && total + units <= limits.globalCapUnits;

  return {
    async admit(payer, priceUnits) {
      if (payer === '' || priceUnits <= 0 || priceUnits > limits.ceilingUnits || closing.signal.aborted) return null;
      // Checked before and after the bar's read: the caps are taken in the same turn as the last check.
      if (!fits(payer, priceUnits) || (await barred(payer)) || !fits(payer, priceUnits)) return null;
      counts.answered++;
      return ticket(payer, priceUnits);
    },
    hold: (payer, units) => ticket(payer, units),
    async confirmed(key, t) {
      counts.confirmed++;
      held[heldCount++ % EARLY_HELD_SAMPLES] = now() - t.since;
      // Given back the moment the chain says confirmed: nothing is at risk any more, and the record
      // only spares a restart the question (without it, the restart asks the chain and hears "landed").
      t.release();
      await store.settle(key, { status: 'confirmed' }).catch((err: unknown) => fault('an early answer confirmed but its outcome not recorded', err));
    },
    async failed(key, t, failure) {
      counts.failed++;
      counts.failedUnits += t.units;
      const failedAt = now();
      const until = failedAt + limits.barMs;
      bars.set(failure.payer, Math.max(until, bars.get(failure.payer) ?? 0));
      log(
        `early answers: payment failed after its early answer: ${failure.reason} on ${failure.network}, transaction ${failure.transaction}, receipt ${failure.receiptSha256 ?? '(none)'}, ${failure.priceUsdcUnits} units lost; payer ${failure.payer} barred from early answers until ${new Date(until).toISOString()}`,
      );
      await Promise.all([
        store.settle(key, { status: 'failed', ...failure, failedAt }).catch((err: unknown) => fault('an early answer failure not recorded', err)),
        store.bar(failure.payer, until).catch((err: unknown) => fault('a payer bar not recorded durably', err)),
        config.ledger
          .append({ kind: 'audit', event: EARLY_FAILED_EVENT, reason: ledgerReason(failure) })
          .catch((err: unknown) => fault('the ledger event of a failed early answer not appended', err)),
      ]);
      // Given back only once the loss is on record: /health's exposure never drops before it is.
      t.release();
    },
    store,
    signal: closing.signal,
    status: () => ({
      ceilingUnits: limits.ceilingUnits,
      payerCapUnits: limits.payerCapUnits,
      globalCapUnits: limits.globalCapUnits,
      barSeconds: Math.round(limits.barMs / 1000),
      exposureUnits: total,
      payersExposed: byPayer.size,
      ...counts,
      heldMsP50: heldMedian(held, heldCount),
    }),
    close: () => closing.abort(),
  };
}

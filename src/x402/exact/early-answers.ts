/**
 * The bounds of early answers (docs/payments.md#early-answers): a paid call priced at or below the
 * ceiling may be answered once its payment is verified and the node accepted the transaction,
 * before it is confirmed. What such answers put at risk is bounded by the book (state/early-book.ts
 * decides with state/early-bounds.ts): a payer's answers in flight within what its confirmed history
 * earned (one at a time with none) and the payer cap, all payers' within the global cap, and the
 * day's losses plus what is in flight within the loss budget; past any of them the call waits for
 * confirmation as any other. A payment that fails after its early answer is recorded durably with
 * its loss, its payer barred from early answers for the bar time, and a ledger audit entry names
 * the receipt whose payment failed; the answer's own entry stays as it is. The loss that brings
 * the day's losses to the budget is logged and audited too: early answers stop until the window rolls.
 */
import { setMaxListeners } from 'node:events';
import type { StagedWrite } from '../../durable/staged-write.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import type { EarlyLimits, EarlyRefusal, EarlyShare } from '../stores/early-bounds.ts';
import type { EarlyAnswerStore, EarlyFailure } from '../stores/early-book.ts';
import { createEarlyStatus, type EarlyStatus } from './early-status.ts';

export type { EarlyLimits } from '../stores/early-bounds.ts';
export type { EarlyStatus } from './early-status.ts';

/** Defaults of the options, in token units (6 decimals: 5000 = $0.005). */
export const EARLY_CEILING_UNITS = 5_000;
export const EARLY_PAYER_CAP_UNITS = 50_000;
export const EARLY_GLOBAL_CAP_UNITS = 1_000_000;
export const EARLY_LOSS_BUDGET_UNITS = 2_000_000;
export const EARLY_BAR_SECONDS = 86_400;
/** The ledger event of a payment that failed after its early answer. */
export const EARLY_FAILED_EVENT = 'payment.failed-after-answer';
/** The ledger event of the loss that brought the day's losses to the budget (early answers stop). */
export const EARLY_BUDGET_EVENT = 'early-answers.loss-budget-reached';

/** One early answer's share of the bounds, held until its payment is confirmed or failed. */
export interface EarlyTicket {
  readonly share: EarlyShare;
  readonly payer: string;
  readonly units: number;
  /** Its payment may be handed off (early-bounds.ts `handOffCovered`); never for a share taken up after a restart. */
  readonly handOff: boolean;
  /** Gives the share back with no outcome (the answer did not go out early); only the first call counts. */
  release(): void;
}

/** What a call asks at its broadcast. */
export type EarlyAsk = Pick<EarlyShare, 'key' | 'payer' | 'units' | 'feeUnits'>;

export interface EarlyAnswers {
  /** Whether a call of this payer at this price can be answered early at all: such a call asks `admit` at its broadcast. */
  eligible(payer: string, priceUnits: number): boolean;
  /** Decides with the book, the settlement's pending record (`record(share, handOff)`, null when refused) committed alongside; a ticket when admitted. */
  admit(ask: EarlyAsk, record: (share: EarlyShare | null, handOff: boolean) => StagedWrite): Promise<EarlyTicket | null>;
  /** The share of an early answer already sent (found unresolved at start): held whatever the bounds say. */
  hold(share: EarlyShare): EarlyTicket;
  confirmed(ticket: EarlyTicket): Promise<void>;
  /**
   * Records the failure and its loss (`lossUnits`: the price, plus the fee when the transaction
   * failed on chain), bars the payer (unless `bar` is false: a loss our crash caused, not the
   * payer), logs it in the ledger; faults reported.
   */
  failed(ticket: EarlyTicket, failure: Omit<EarlyFailure, 'status' | 'failedAt'>, lossUnits: number, bar?: boolean): Promise<void>;
  /** A payment confirmed on the confirmed path: its payer's history grows (in the background). */
  credit(payer: string, units: number): void;
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
  /** The most one early answer can lose: the ceiling plus the dearest fee a failed settlement costs, in token units. */
  readonly maxRiskUnits?: number;
  /** SOL's price in USD at which fees are counted (shown in /health). */
  readonly solPriceUsd?: number;
  /** Bookkeeping faults; default stderr. */
  readonly fault?: (what: string, err: unknown) => void;
  readonly log?: (line: string) => void;
  /** Wall clock (ms since the epoch): the bar, the day's window, the payer's history. Tests inject one. */
  readonly now?: () => number;
}

/** The ledger reason of a failure: public, so the receipt and the reason code, never the payer. */
function ledgerReason(f: Omit<EarlyFailure, 'status' | 'failedAt'>): string {
  const receipt = f.receiptSha256 ? `receipt ${f.receiptSha256} (ledger entry ${f.ledgerIndex ?? 'unknown'})` : 'an answer sent without a receipt';
  return `${receipt}: its payment on ${f.network} failed after the answer (${f.reason.slice(0, 64)})`;
}

const dollars = (units: number): string => `$${(units / 1e6).toFixed(6).replace(/0{1,4}$/, '')}`;

/** Creates the bounds over `store` (files or the database). */
export function createEarlyAnswers(config: EarlyAnswersConfig): EarlyAnswers {
  const { limits, store } = config;
  const now = config.now ?? Date.now;
  const log = config.log ?? ((line: string) => console.error(line));
  const fault = config.fault ?? ((what: string, err: unknown) => log(`early answers: ${what}: ${err instanceof Error ? err.message : String(err)}`));
  const closing = new AbortController();
  // Every confirmation still waited for listens to this one signal and lets go when it ends: the
  // listeners count the settlements in flight, not a leak, and Node's warning at 11 would be noise.
  setMaxListeners(0, closing.signal);
  const view = createEarlyStatus({ limits, store, now, maxRiskUnits: config.maxRiskUnits ?? limits.ceilingUnits, solPriceUsd: config.solPriceUsd ?? null });

  function ticketOf(share: EarlyShare, handOff = false): EarlyTicket {
    let holding = true;
    return {
      share,
      payer: share.payer,
      units: share.units,
      handOff,
      release() {
        if (!holding) return;
        holding = false;
        store.release(share.key).catch((err: unknown) => fault('an early share could not be given back', err));
      },
    };
  }

  function refusedBy(reason: EarlyRefusal): null {
    view.refused(reason);
    return null;
  }

  /** The loss that brought the day's losses to the budget: said once, in the log and the ledger. */
  async function reachedBudget(before: number, after: number): Promise<void> {
    if (view.budgetReached(before) || !view.budgetReached(after)) {
      if (!view.newPayersStopped(before) && view.newPayersStopped(after))
        log(`early answers: payers without confirmed history lost ${dollars(after)} or more today; their calls wait for confirmation until the window rolls`);
      return;
    }
    const reason = `losses of ${after} units in the last day reached the loss budget of ${limits.lossBudgetUnits} units: early answers stop until the window rolls`;
    log(`early answers: ${reason} (${dollars(after)} of ${dollars(limits.lossBudgetUnits)})`);
    await config.ledger.append({ kind: 'audit', event: EARLY_BUDGET_EVENT, reason });
  }

  return {
    eligible: (payer, priceUnits) =>
      payer !== '' && priceUnits > 0 && priceUnits <= limits.ceilingUnits && limits.lossBudgetUnits > 0 && !closing.signal.aborted,
    async admit(ask, record) {
      const taken = await store.admit({ ...ask, at: now() }, limits, record);
      if ('refused' in taken) return refusedBy(taken.refused);
      view.answered(taken.share);
      return ticketOf(taken.share, taken.handOff);
    },
    hold(share) {
      store.hold(share).catch((err: unknown) => fault('an early answer left by a stop could not be counted', err));
      return ticketOf(share);
    },
    async confirmed(t) {
      view.confirmed(t.share);
      await store.confirmed(t.share, now()).catch((err: unknown) => fault('an early answer confirmed but its outcome not recorded', err));
    },
    async failed(t, failure, lossUnits, bar = true) {
      const failedAt = now();
      const until = bar ? failedAt + limits.barMs : 0;
      const barred = bar ? `barred from early answers until ${new Date(until).toISOString()}` : 'not barred (lost by our stop before the send)';
      log(
        `early answers: payment failed after its early answer: ${failure.reason} on ${failure.network}, transaction ${failure.transaction}, receipt ${failure.receiptSha256 ?? '(none)'}, ${lossUnits} units lost (price and fee); payer ${failure.payer} ${barred}`,
      );
      view.failed(t.share, lossUnits);
      const [step] = await Promise.all([
        store.failed(t.share, { status: 'failed', ...failure, failedAt }, lossUnits, until).catch((err: unknown) => {
          fault('an early answer failure not recorded', err);
          return null;
        }),
        config.ledger
          .append({ kind: 'audit', event: EARLY_FAILED_EVENT, reason: ledgerReason(failure) })
          .catch((err: unknown) => fault('the ledger event of a failed early answer not appended', err)),
      ]);
      if (step) await reachedBudget(step.before, step.after).catch((err: unknown) => fault('the ledger event of the loss budget not appended', err));
    },
    credit(payer, units) {
      if (payer === '' || units <= 0) return;
      store.credit(payer, units, now()).catch((err: unknown) => fault("a confirmed payment not credited to its payer's history", err));
    },
    store,
    signal: closing.signal,
    status: () => view.status(),
    close: () => closing.abort(),
  };
}

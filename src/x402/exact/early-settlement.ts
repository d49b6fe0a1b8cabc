/**
 * The early answer of a cheap paid call (docs/payments.md#early-answers): settle as always, but
 * decide at the broadcast (the bounds admit it, its pending record in the same commit) and, when
 * admitted, answer as soon as the node accepted the transaction (sent, its preflight passed; for a
 * payer with confirmed history, as soon as it is handed to the RPC, no preflight), and
 * follow the confirmation in the background: confirmed, the payer's share is given back and its
 * history grows; failed on chain or never landing (its blockhash expired), early-answers.ts records
 * the loss and bars the payer. At start, every early answer a crash left unresolved (its
 * settlement record says early and nothing says how it ended) counts against the bounds again and
 * is followed the same way.
 */
import type { HttpReply } from '../../errors.ts';
import { createEarlyEnds } from './early-ends.ts';
import { decodeReceiptHeader, RECEIPT_HEADER, receiptSha256 } from '../../receipts/receipt.ts';
import type { EarlyAnswers, EarlyTicket } from './early-answers.ts';
import type { BroadcastPlan, ExactSchemeFacilitator, OnAccepted, SettleResult } from '../types/scheme-facilitator.ts';
import type { PendingSettlements } from '../stores/pending-settlements.ts';
import type { PaidResource } from '../types/paid-call.ts';
import type { PaymentPayload } from '../types/x402-types.ts';

/** How often a settlement that outlived the confirmation wait is asked about again. */
export const EARLY_RESOLVE_EVERY_MS = 2_000;
const SETTLEMENT_PENDING = 'settlement_pending';
const LEFT_UNFOLLOWED = 'an early answer left by a stop could not be followed';
const HAND_OFF: BroadcastPlan = Object.freeze({ handOff: true });

/** What an early settlement started: the early 200, or (the node did not accept it) the settlement's result. */
export type EarlyRun = { readonly reply: HttpReply; readonly transaction: string } | { readonly settled: SettleResult };

/** The payment an early answer was for, as its failure record needs it. */
interface Followed {
  readonly key: string;
  readonly ticket: EarlyTicket;
  readonly payment: PaymentPayload;
  readonly network: string;
  readonly transaction: string;
  readonly paid: PaidResource;
  readonly reply: { readonly headers?: Readonly<Record<string, string>> | undefined } | undefined;
}

export interface EarlySettlement {
  readonly answers: EarlyAnswers;
  /**
   * Settles, with `admit` run right before the broadcast (it writes the pending record and says
   * whether the bounds admitted an early answer); admitted, once the node accepts, `deliver` makes
   * the 200 and the confirmation is followed in the background. Not admitted: the settlement's result.
   */
  run(
    scheme: ExactSchemeFacilitator,
    call: { readonly key: string; readonly payment: PaymentPayload; readonly requirements: ExactSchemeRequirements; readonly signal: AbortSignal },
    paid: PaidResource,
    admit: (transaction: string) => Promise<EarlyTicket | null>,
    deliver: (transaction: string) => Promise<HttpReply>,
    onAccepted?: OnAccepted,
  ): Promise<EarlyRun>;
  /**
   * Takes up the unresolved early answers not followed here (a stop's; with `recordedBefore`, a gone
   * instance's older than it: early-adoption.ts); resolves once they are counted (not confirmed).
   */
  recover(schemeFor: (network: string) => ExactSchemeFacilitator | undefined, recordedBefore?: number): Promise<number>;
}

type ExactSchemeRequirements = Parameters<ExactSchemeFacilitator['verify']>[1];

function receiptOf(reply: Followed['reply']): { sha: string | null; index: number | null } {
  const header = reply?.headers?.[RECEIPT_HEADER];
  const decoded = header ? decodeReceiptHeader(header) : null;
  return decoded?.ok ? { sha: receiptSha256(decoded.receipt), index: decoded.receipt.ledgerIndex } : { sha: null, index: null };
}

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Creates the early path over the bounds and the settlement records. */
export function createEarlySettlement(config: {
  readonly answers: EarlyAnswers;
  readonly pending: Pick<PendingSettlements, 'listEarly' | 'ended'>;
  readonly fault: (what: string, err: unknown) => void;
  readonly resolveEveryMs?: number;
  /** How long ended answers' marks wait to be written together (early-ends.ts). */
  readonly endEveryMs?: number;
}): EarlySettlement {
  const { answers } = config;
  const everyMs = config.resolveEveryMs ?? EARLY_RESOLVE_EVERY_MS;
  /**
   * Its outcome written (read back: the book's writes report their faults, not their results), the
   * answer's record is marked ended and expires as any record; until then it is kept whatever its age.
   */
  const ends = createEarlyEnds({
    mark: async (key) => {
      if (await answers.store.outcome(key)) await config.pending.ended(key);
    },
    fault: config.fault,
    ...(config.endEveryMs === undefined ? {} : { everyMs: config.endEveryMs }),
  });
  answers.signal.addEventListener('abort', () => void ends.flush(), { once: true });
  const ended = (key: string): void => ends.add(key);
  // The answers this instance follows now: an adoption takes up only the others.
  const following = new Set<string>();
  const track = (key: string, run: Promise<void>, what: string): void => {
    following.add(key);
    void run.catch((err: unknown) => config.fault(what, err)).finally(() => following.delete(key));
  };

  async function fail(scheme: ExactSchemeFacilitator, f: Followed, reason: string, message: string, bar = true): Promise<void> {
    // Another instance on the same database may have followed it to its end already: one record, one ledger event.
    if (await answers.store.outcome(f.key).catch(() => undefined)) {
      f.ticket.release();
      return ended(f.key);
    }
    const { sha, index } = receiptOf(f.reply);
    // What was lost: the answer, and the fee our fee payer paid when the transaction failed on chain.
    const lossUnits = f.ticket.units + (scheme.failureFeeUnits?.(f.payment, reason) ?? 0);
    const failure = {
      network: f.network,
      transaction: f.transaction,
      payer: f.ticket.payer,
      endpoint: f.paid.endpoint,
      priceUsdcUnits: f.paid.priceUsdcUnits,
      receiptSha256: sha,
      ledgerIndex: index,
      reason,
      message: message.slice(0, 512),
    };
    await answers.failed(f.ticket, failure, lossUnits, bar);
    return ended(f.key);
  }
  const confirm = (f: Followed) => answers.confirmed(f.ticket).then(() => ended(f.key));

  /**
   * Asks the chain until the payment landed or can no longer land; a stop leaves it for the next
   * start. `restarted`: taken up after a stop, when the transaction may never have been sent (its
   * record and answer were made durable before the broadcast): one that never landed is a loss, but
   * ours, so its payer is not barred; one that failed on chain is the payer's, as always.
   */
  async function resolve(scheme: ExactSchemeFacilitator, f: Followed, restarted = false): Promise<void> {
    while (!answers.signal.aborted) {
      const status = await scheme.settlementStatus!(f.payment, f.payment.accepted, f.transaction, answers.signal).catch(() => null);
      if (status?.status === 'landed') return confirm(f);
      if (status?.status === 'failed') return fail(scheme, f, status.reason, status.message, !(restarted && status.neverLanded));
      await wait(everyMs, answers.signal);
    }
  }

  async function follow(scheme: ExactSchemeFacilitator, f: Followed, settling: Promise<SettleResult>): Promise<void> {
    const settled = await settling.catch(
      (): SettleResult => ({ success: false, errorReason: SETTLEMENT_PENDING, transaction: f.transaction, network: f.network }),
    );
    if (settled.success) return confirm(f);
    if (settled.errorReason === SETTLEMENT_PENDING || !scheme.settlementStatus) return resolve(scheme, f);
    return fail(scheme, f, settled.errorReason ?? 'settlement_failed', settled.errorMessage ?? '');
  }

  return {
    answers,
    async run(scheme, call, paid, admit, deliver, onAccepted) {
      let accept: (transaction: string) => void = () => undefined;
      const accepted = new Promise<string>((r) => {
        accept = r;
      });
      const admitted: { ticket: EarlyTicket | null } = { ticket: null };
      const beforeBroadcast = async (transaction: string): Promise<BroadcastPlan | undefined> => {
        admitted.ticket = await admit(transaction);
        // Admitted, and the payer's confirmed value covers what its answers in flight would lose:
        // the answer leaves at the hand-off, without the node's preflight (docs/payments.md#the-hand-off).
        return admitted.ticket?.handOff ? HAND_OFF : undefined;
      };
      const settling = scheme.settle(call.payment, call.requirements, call.signal, beforeBroadcast, (tx) => {
        onAccepted?.(tx);
        accept(tx);
      });
      const first = await Promise.race([accepted.then((transaction) => ({ transaction })), settling.then((settled) => ({ settled }))]).catch((err: unknown) => {
        admitted.ticket?.release();
        throw err;
      });
      const { ticket } = admitted;
      // Not admitted (the call waits for its confirmation), or not accepted: the settlement's own result.
      if (!ticket || 'settled' in first) {
        ticket?.release();
        return { settled: 'settled' in first ? first.settled : await settling };
      }
      // An answer that could not be made (its commit failed) never went out: nothing is at risk,
      // so its share is given back at once; the payment's retry takes the confirmed path.
      const reply = await deliver(first.transaction).catch((err: unknown) => {
        ticket.release();
        throw err;
      });
      const followed: Followed = {
        key: call.key,
        ticket,
        payment: call.payment,
        network: call.requirements.network,
        transaction: first.transaction,
        paid,
        reply,
      };
      track(call.key, follow(scheme, followed, settling), 'an early answer could not be followed to its confirmation');
      return { reply, transaction: first.transaction };
    },
    async recover(schemeFor, recordedBefore = Number.POSITIVE_INFINITY) {
      let taken = 0;
      for (const [key, record] of await config.pending.listEarly()) {
        const scheme = schemeFor(record.network);
        // Never delivered: no early answer left, and the retry of the payment resolves it as today.
        if (!record.early || !record.delivered || !scheme?.settlementStatus) continue;
        if (following.has(key) || record.recordedAt >= recordedBefore) continue;
        // Followed to its end already (a stop came between its outcome and its record's mark).
        if (await answers.store.outcome(key)) {
          await ended(key);
          continue;
        }
        const { payment } = record.early;
        const ticket = answers.hold({
          key,
          payer: record.payer,
          units: record.paid.priceUsdcUnits,
          feeUnits: record.early.feeUnits ?? scheme.failureFeeUnits?.(payment) ?? 0,
          // A record from before trust was kept counts as a new payer's (the stricter share).
          trusted: record.early.trusted ?? false,
          at: record.recordedAt,
        });
        const followed: Followed = {
          key,
          ticket,
          payment,
          network: record.network,
          transaction: record.transaction,
          paid: record.paid,
          reply: record.delivered,
        };
        // Sent again first: a stop between the answer's commit and its send left it unsent (a
        // handed-off answer, docs/payments.md#the-hand-off); sent already, the same bytes change nothing.
        const sent = (scheme.rebroadcast?.(payment, record.transaction, answers.signal) ?? Promise.resolve()).then(() => resolve(scheme, followed, true));
        track(key, sent, LEFT_UNFOLLOWED);
        taken++;
      }
      return taken;
    },
  };
}

/**
 * The exact scheme's settlement, one state machine read top to bottom (docs/contract.md#paid-call-flow
 * steps 4-7). A payment, known by its scheme's replay key, is in one of these states, and `process`
 * below takes each in turn:
 *
 *   refused a moment ago       -> the same refusal, with no verify and no chain round trip
 *   delivered (200 kept)       -> redeliver: the identical retry gets that 200 again, nothing charged
 *   pending (sent, unconfirmed) -> resolvePending: ask the chain; landed: deliver; failed: refuse, free
 *   settled, 200 not kept      -> being delivered here (or kept failed): come back later; else the
 *                                 process that settled it stopped: resolvePending, as if pending
 *   new                        -> claim the key, then settleClaimed: verify, compute the answer, and
 *                                 only for a 200 settle (early, or waiting for the commitment), then
 *                                 deliver, record it pending (402 settlement_pending), or refuse
 *
 * Every settlement is on disk (state/pending-settlements.ts) before its payment can reach the chain,
 * and once money moved nothing withholds the answer: bookkeeping faults after settlement are
 * reported and the 200 still goes out. The claim on the key is given back unless the payment settled.
 *
 * Longer than the house's 250 lines on purpose: it is one state machine. Split, its steps lived in
 * three files (payment-processor, claimed-settlement, paid-delivery) that handed each other closures
 * (`refuse`, `deliver`, `fault`), and a reader followed one payment across all three.
 */
import { replyForError, type HttpReply } from '../../errors.ts';
import { type ReceiptStamp, withSettleFailure } from '../delivery/paid-delivery.ts';
import type { PaidTiming } from '../delivery/paid-timing.ts';
import type { ChallengeBuilder } from '../delivery/payment-terms.ts';
import { refusalSentence } from '../delivery/reason-messages.ts';
import type { FailedPayments } from '../stores/failed-payments.ts';
import { replyOf, type PendingSettlement, type PendingSettlements, type StoredAnswer } from '../stores/pending-settlements.ts';
import { noRoomFor, recordsRefused } from '../stores/record-shares.ts';
import type { ReplayGuard } from '../stores/replay-guard.ts';
import type { ExactScheme, SettleResult } from '../types/exact-scheme.ts';
import { paidOf, payloadSha256, type PaidCall } from '../types/paid-call.ts';
import type { EarlySettlement } from './early-settlement.ts';
import { createExactDelivery } from './exact-delivery.ts';
import { callerStayed, createPendingRecorder, type PendingRecorder, unrecordedFault } from './pending-recorder.ts';

const SETTLEMENT_PENDING = 'settlement_pending';
/** The early 200's PAYMENT-RESPONSE says what is known: the node accepted the transaction, not yet confirmed. */
const EARLY_EXTRA = Object.freeze({ settlement: 'submitted' });

/** Where the exact settlement keeps what outlives a call, and how it answers. */
export interface ExactSettlementConfig {
  readonly replayGuard: Pick<ReplayGuard, 'acquire' | 'release' | 'markSettled' | 'stageSettled'>;
  readonly pending: PendingSettlements;
  /** Payments refused by their verification a moment ago: their repeats cost no verification. */
  readonly failed: FailedPayments;
  /** Early answers of cheap calls (early-settlement.ts); null: every call waits for its confirmation. */
  readonly early: EarlySettlement | null;
  /** The route's challenge builder, for the 402 that names a refusal's reason. */
  readonly challengeFor: (path: string) => ChallengeBuilder;
  /** Our receipt (with its ledger entry) and the x402 offer-receipt of a delivered answer. */
  readonly stamp: ReceiptStamp;
  /** Bookkeeping faults after a settlement (the answer goes out regardless). */
  readonly fault: (what: string, err: unknown) => void;
}

/** Settles one exact payment on its scheme, from whatever state its replay key is in. */
export interface ExactSettlement {
  process(call: PaidCall, scheme: ExactScheme, timing: PaidTiming): Promise<HttpReply>;
}

/** The route's 402 naming why the payment was refused. */
export function refusal(challengeFor: (path: string) => ChallengeBuilder, call: PaidCall, reason: string, message?: string): HttpReply {
  return challengeFor(call.entry.path).reply(call.resourceUrl, message ? `${reason}: ${message}` : reason);
}

/** Creates the state machine over one replay guard and one pending store. */
export function createExactSettlement(config: ExactSettlementConfig): ExactSettlement {
  const { replayGuard, pending, failed, fault } = config;
  const refuse = (call: PaidCall, reason: string, message?: string): HttpReply => refusal(config.challengeFor, call, reason, message);
  // Keys whose 200 this process is delivering now (marked settled, not kept yet), and keys whose 200
  // went out but could not be kept: a retry finding one settled comes back later. A settled key in
  // neither, with no 200 kept, was left by a process that stopped in between (resolvePending).
  const delivering = new Set<string>();
  const unkept = new Set<string>();
  const unrecorded = unrecordedFault(fault);
  const notConfirmed = (call: PaidCall, tx: string): HttpReply =>
    refuse(call, SETTLEMENT_PENDING, `transaction ${tx} not confirmed yet; retry the same payment to get the answer once it lands`);

  /** The state of the payment's key decides the path. */
  async function process(call: PaidCall, scheme: ExactScheme, timing: PaidTiming): Promise<HttpReply> {
    const key = scheme.replayKey(call.payment);
    if (key === null) return refuse(call, 'invalid_payload', 'the payment payload has no transaction this network can read');
    // Refused a moment ago: the same refusal, with no signature check or chain round trip.
    const refused = failed.recall(key, () => payloadSha256(call));
    if (refused) return refuse(call, refused.reason, refused.message);
    const record = await pending.get(key);
    if (record?.delivered) return redeliver(call, { ...record, delivered: record.delivered });
    if (record && scheme.settlementStatus) return resolvePending(call, scheme, key, record, timing);
    // A new payment only while its record has room, within its (named, unchecked) payer's and address's shares; nothing held is dropped for it.
    const noRoom = noRoomFor(pending, { payer: scheme.payerOf?.(call.payment) ?? '', client: call.request.client ?? '' });
    if (noRoom) return replyForError(recordsRefused(noRoom));
    const claim = await replayGuard.acquire(key);
    if (claim === 'acquired') return settleClaimed(call, scheme, key, timing);
    if (claim === 'settled') {
      // Settled since the record was read (another request, or another instance, just delivered
      // it): the identical retry still gets its 200.
      const now = await pending.get(key);
      if (now?.delivered) return redeliver(call, { ...now, delivered: now.delivered });
    }
    return refuse(call, 'duplicate_settlement', claim === 'settled' ? 'this payment was already settled' : 'this payment is being settled by another request');
  }

  /** A new payment whose key this call holds: verify, answer, settle a 200; the claim is given back unless it settled. */
  async function settleClaimed(call: PaidCall, scheme: ExactScheme, key: string, timing: PaidTiming): Promise<HttpReply> {
    let keepClaim = false;
    try {
      let mark = performance.now();
      const verified = await scheme.verify(call.payment, call.requirements, call.request.signal);
      // The scheme reports its chain check (simulation) apart: the rest of verify is our own work.
      const simulateMs = verified.simulateMs ?? 0;
      mark = timing.lap('verify', mark + simulateMs);
      if (verified.simulateMs !== undefined) timing.add('simulate', simulateMs);
      if (!verified.isValid) {
        const reason = verified.invalidReason ?? 'invalid_payment';
        const refused = { reason, message: refusalSentence(reason, verified.invalidMessage) };
        if (!verified.transient) failed.remember(key, payloadSha256(call), refused);
        return refuse(call, refused.reason, refused.message);
      }
      const answer = await call.answer().catch(replyForError);
      mark = timing.lap('handler', mark);
      // Charged only for a 200: any other answer goes out as it is, nothing settled.
      if (answer.status !== 200) return answer;
      const recorder = createPendingRecorder(pending, call, key, answer);
      const payer = verified.payer ?? '';
      const beforeBroadcast = async (transaction: string): Promise<void> => {
        callerStayed(call);
        // On disk before the payment can reach the chain: a crash after the broadcast leaves the
        // record for the retry to resolve, instead of a charge without an answer.
        const writing = performance.now();
        if (scheme.settlementStatus) await recorder.record(call.requirements.network, payer, transaction).catch(unrecorded);
        recorder.sentAt = timing.lap('record', writing);
      };
      const early = await settleEarly(call, scheme, key, { answer, recorder, timing, payer });
      if (early && 'reply' in early) {
        keepClaim = true;
        return early.reply;
      }
      const settled = early
        ? early.settled
        : await scheme.settle(call.payment, call.requirements, call.request.signal, beforeBroadcast, sent(recorder, timing));
      timing.lap('settle', mark);
      keepClaim = settled.success;
      if (settled.success) credit(scheme, settled.payer || payer, call);
      return await afterSettle(call, key, answer, recorder, settled, timing, payer);
    } catch (err) {
      return replyForError(err);
    } finally {
      if (!keepClaim) await releaseClaim(key);
    }
  }

  /** Times `send`: from the record's durable write to the node's acceptance of the transaction. */
  const sent = (recorder: PendingRecorder, timing: PaidTiming) => (): void => timing.add('send', performance.now() - recorder.sentAt);

  /**
   * The early answer, when the scheme reports acceptance and the price is at or below the ceiling:
   * at the broadcast the bounds decide, the pending record (an early answer's when admitted) in the
   * same commit; admitted, the 200 once the node took the transaction. Null: the confirmed path.
   */
  async function settleEarly(
    call: PaidCall,
    scheme: ExactScheme,
    key: string,
    c: { answer: HttpReply; recorder: PendingRecorder; timing: PaidTiming; payer: string },
  ) {
    const paid = paidOf(call);
    const early = config.early;
    if (!early || !scheme.reportsAcceptance || !scheme.settlementStatus || !early.answers.eligible(c.payer, paid.priceUsdcUnits)) return null;
    const { network } = call.requirements;
    const ask = { key, payer: c.payer, units: paid.priceUsdcUnits, feeUnits: scheme.failureFeeUnits?.(call.payment) ?? 0 };
    const admit = async (transaction: string) => {
      callerStayed(call);
      const writing = performance.now();
      const ticket = await early.answers.admit(ask, (share) => c.recorder.stage(network, c.payer, transaction, share)).catch(unrecorded);
      c.recorder.sentAt = c.timing.lap('record', writing);
      return ticket;
    };
    const mark = performance.now();
    const run = { key, payment: call.payment, requirements: call.requirements, signal: call.request.signal };
    const answerEarly = (transaction: string) => {
      c.timing.lap('settle', mark);
      const settled = { success: true, transaction, network, payer: c.payer, extra: EARLY_EXTRA };
      return deliver(call, key, settled, c.answer, paid, c.timing, true);
    };
    const result = await early.run(scheme, run, paid, admit, answerEarly, sent(c.recorder, c.timing));
    // Not answered early: the confirmed path's outcome, and its record (if any) is no early answer's.
    if ('settled' in result) c.recorder.early = false;
    return result;
  }

  /** After `settle`: deliver, keep the record of a pending one, or drop it when nothing was charged. */
  async function afterSettle(
    call: PaidCall,
    key: string,
    answer: HttpReply,
    recorder: PendingRecorder,
    settled: SettleResult,
    timing: PaidTiming,
    payer: string,
  ) {
    if (settled.success) return deliver(call, key, settled, answer, paidOf(call), timing, recorder.recorded);
    if (settled.errorReason === SETTLEMENT_PENDING && recorder.recorded) {
      // Now with what the broadcast told (the EVM hash, the payer), for the answer's PAYMENT-RESPONSE.
      await recorder.record(settled.network, settled.payer || payer, settled.transaction);
      return notConfirmed(call, `${settled.transaction || '(hash unknown)'} was sent but is`);
    }
    // Definitely not charged (refused, failed on chain): nothing left to resolve.
    if (recorder.recorded) await pending.resolve(key);
    const reason = settled.errorReason ?? 'settlement_failed';
    if (settled.refused) failed.remember(key, payloadSha256(call), { reason, message: refusalSentence(reason, settled.errorMessage) });
    return withSettleFailure(refuse(call, reason, refusalSentence(reason, settled.errorMessage)), settled);
  }

  /** A retry of a payment whose settlement was pending: ask the chain where it stands. */
  async function resolvePending(call: PaidCall, scheme: ExactScheme, key: string, record: PendingSettlement, timing: PaidTiming): Promise<HttpReply> {
    if (record.payloadSha256 !== payloadSha256(call)) return refuse(call, 'duplicate_settlement', 'another payment with this key is being settled');
    const claim = await replayGuard.acquire(key);
    // Settled, its 200 not kept: while a request here is delivering it (receipt, ledger entry) the
    // retry comes back later; when none is, the process that settled it stopped between marking it
    // settled and keeping its 200 (a crash), and the chain decides, as for a pending record.
    const takeover = claim === 'settled';
    if (claim === 'in_flight' || (takeover && (delivering.has(key) || unkept.has(key))))
      return refuse(call, 'duplicate_settlement', 'this payment is being settled by another request');
    if (takeover) delivering.add(key);
    let keepClaim = false;
    try {
      const asked = performance.now();
      const status = await scheme.settlementStatus!(call.payment, call.requirements, record.transaction, call.request.signal);
      timing.lap('settle', asked);
      // What the chain said of it (not seen yet, or an RPC's failure to say) is not the payer's to read.
      if (status.status === 'pending') return notConfirmed(call, `${record.transaction} is`);
      if (status.status === 'failed') {
        // Nothing was charged: the payment is free to be made again (with a fresh transaction).
        await pending.resolve(key);
        return refuse(call, status.reason, refusalSentence(status.reason, status.message));
      }
      keepClaim = true;
      // Kept meanwhile by another instance (a shared database): that 200, not a second receipt.
      const kept = takeover ? await pending.get(key) : undefined;
      if (kept?.delivered) return redeliver(call, { ...kept, delivered: kept.delivered });
      const settled: SettleResult = { success: true, transaction: record.transaction, network: record.network, payer: record.payer };
      if (!record.early) credit(scheme, record.payer, call);
      return await deliver(call, key, settled, replyOf(record.answer), record.paid, timing, true);
    } catch (err) {
      return replyForError(err);
    } finally {
      if (takeover) delivering.delete(key);
      if (!keepClaim) await releaseClaim(key);
    }
  }

  /** A retry of a settled payment whose 200 its caller never received: that 200 again, nothing charged. */
  function redeliver(call: PaidCall, record: PendingSettlement & { readonly delivered: StoredAnswer }): HttpReply {
    // The same transaction under another payload, or sent for another request, is not this
    // payment's retry: the kept answer is the one it bought, for the request it was made for.
    if (record.payloadSha256 !== payloadSha256(call)) return refuse(call, 'duplicate_settlement', 'this payment was already settled');
    if (record.paid.originalUrl !== paidOf(call).originalUrl)
      return refuse(call, 'duplicate_settlement', `this payment was already settled for ${record.paid.originalUrl.slice(0, 256)}`);
    return replyOf(record.delivered);
  }

  const deliver = createExactDelivery({ replayGuard, pending, stamp: config.stamp, fault, delivering, unkept });

  /** Gives the claim back before the reply leaves, so an immediate retry finds it free; a fault only delays the retry (the claim's lease). */
  async function releaseClaim(key: string): Promise<void> {
    try {
      await replayGuard.release(key);
    } catch (err) {
      fault('a payment claim could not be released (it frees itself when its lease ends)', err);
    }
  }

  /** A payment confirmed on a chain whose calls may be answered early: its payer's history grows (early-answers.ts). */
  function credit(scheme: ExactScheme, payer: string, call: PaidCall): void {
    if (config.early && scheme.reportsAcceptance) config.early.answers.credit(payer, paidOf(call).priceUsdcUnits);
  }

  return { process };
}

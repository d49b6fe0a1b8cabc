/**
 * A payment whose replay key this request holds: verify it, compute the answer, settle only a 200,
 * and keep the pending record that lets a slow settlement be answered later. Also the retry of a
 * payment whose settlement was pending: ask the chain where it stands and deliver once it landed.
 * The claim is released unless the payment settled (then the replay record keeps it).
 */
import { replyForError, ServiceError, type HttpReply } from '../errors.ts';
import type { EarlySettlement } from './early-settlement.ts';
import type { ExactScheme, SettleResult } from './exact-scheme.ts';
import { paidOf, payloadSha256, type PaidCall } from './paid-call.ts';
import { type PaidDelivery, withSettleFailure } from './paid-delivery.ts';
import type { FailedPayments } from './failed-payments.ts';
import type { PaidTiming } from './paid-timing.ts';
import { replyOf, storableAnswer, type PendingSettlement, type PendingSettlements, type StoredAnswer } from './pending-settlements.ts';
import { refusalSentence } from './reason-messages.ts';
import type { ReplayGuard } from './replay-guard.ts';

const SETTLEMENT_PENDING = 'settlement_pending';
/** The early 200's PAYMENT-RESPONSE says what is known: the node accepted the transaction, not yet confirmed. */
const EARLY_EXTRA = Object.freeze({ settlement: 'submitted' });

/** What settling a claimed payment uses; `refuse` answers the route's 402 naming the reason. */
export interface ClaimedSettlementConfig {
  readonly replayGuard: Pick<ReplayGuard, 'acquire' | 'release'>;
  readonly pending: PendingSettlements;
  readonly deliver: PaidDelivery;
  readonly refuse: (call: PaidCall, reason: string, message?: string) => HttpReply;
  readonly fault: (what: string, err: unknown) => void;
  /** Where a payment its verification refused is remembered, so its repeats cost no verification. */
  readonly failed?: Pick<FailedPayments, 'remember'>;
  /** Early answers of cheap calls (early-settlement.ts); absent or null: every call waits for confirmation. */
  readonly early?: EarlySettlement | null;
}

/** Settles claimed payments, fresh or pending since an earlier attempt. */
export interface ClaimedSettlement {
  /** Verify, answer, settle for one claimed payment; the claim is released unless settled. Phases go to `timing`. */
  settleClaimed(call: PaidCall, scheme: ExactScheme, key: string, timing: PaidTiming): Promise<HttpReply>;
  /** A retry of a payment whose settlement was pending: ask the chain where it stands. */
  resolvePending(call: PaidCall, scheme: ExactScheme, key: string, record: PendingSettlement, timing: PaidTiming): Promise<HttpReply>;
  /** The identical retry of a settled payment: its kept 200 again; another payload or request is refused. */
  redeliver(call: PaidCall, record: PendingSettlement & { readonly delivered: StoredAnswer }): HttpReply;
}

type Delivery = { answer: HttpReply; paid: PendingSettlement['paid']; timing: PaidTiming; keep?: boolean };

/** Creates both settlement paths over one pending store and one replay guard. */
export function createClaimedSettlement(config: ClaimedSettlementConfig): ClaimedSettlement {
  const { replayGuard, pending, deliver, refuse, fault } = config;
  /** Keys whose 200 this process is delivering (marked settled, not kept yet), or sent but could not keep: retries come back later. */
  const delivering = new Set<string>();
  const unkept = new Set<string>();
  const notConfirmed = (call: PaidCall, tx: string): HttpReply =>
    refuse(call, SETTLEMENT_PENDING, `transaction ${tx} not confirmed yet; retry the same payment to get the answer once it lands`);

  /**
   * After delivery the 200 stays with the record for the identical retry of the same payment,
   * whether or not the caller was seen to go: a dropped connection is often noticed only after
   * its 200 was written into the dead socket (a late event loop, a peer gone without a FIN), and
   * the payer was charged. The retry gets the same 200, receipt included, with no new charge and no
   * new ledger entry; another payload or another request stays refused (redeliver). `keep` false: no record to keep it with.
   */
  async function deliverAndKeep(call: PaidCall, key: string, settled: SettleResult, d: Delivery): Promise<HttpReply> {
    delivering.add(key);
    try {
      const reply = await deliver(key, settled, d.answer, d.paid, d.timing, call.resourceUrl);
      const gone = call.request.signal.aborted ? ' the caller did not receive' : '';
      const kept = d.keep === false ? null : pending.keepDelivered(key, reply);
      await kept?.catch((err: unknown) => {
        unkept.add(key);
        fault(`a settled answer${gone} could not be kept for its retry`, err);
      });
      return reply;
    } finally {
      delivering.delete(key);
    }
  }

  /** Writes (and rewrites) the pending record of one settlement, and remembers that it did. */
  function pendingRecorder(call: PaidCall, key: string, answer: HttpReply) {
    const recorder = {
      recorded: false,
      /** The payment is being answered early: its record carries it, for a restart to follow. */
      early: false,
      record(network: string, payer: string, transaction: string): Promise<void> {
        recorder.recorded = true;
        return pending.record(key, {
          network,
          transaction,
          payer,
          payloadSha256: payloadSha256(call),
          answer: storableAnswer(answer),
          paid: paidOf(call),
          recordedAt: Date.now(),
          ...(recorder.early ? { early: { payment: call.payment } } : {}),
        });
      },
    };
    return recorder;
  }

  /** After `settle`: deliver, keep the record of a pending one, or drop it when nothing was charged. */
  type Recorder = ReturnType<typeof pendingRecorder>;
  async function afterSettle(call: PaidCall, key: string, answer: HttpReply, recorder: Recorder, settled: SettleResult, timing: PaidTiming, payer?: string) {
    if (settled.success) return deliverAndKeep(call, key, settled, { answer, paid: paidOf(call), timing, keep: recorder.recorded });
    if (settled.errorReason === SETTLEMENT_PENDING && recorder.recorded) {
      // Now with what the broadcast told (the EVM hash, the payer), for the answer's PAYMENT-RESPONSE.
      await recorder.record(settled.network, settled.payer || payer || '', settled.transaction);
      return notConfirmed(call, `${settled.transaction || '(hash unknown)'} was sent but is`);
    }
    // Definitely not charged (refused, failed on chain): nothing left to resolve.
    if (recorder.recorded) await pending.resolve(key);
    const reason = settled.errorReason ?? 'settlement_failed';
    return withSettleFailure(refuse(call, reason, refusalSentence(reason, settled.errorMessage)), settled);
  }

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
        const refusal = { reason, message: refusalSentence(reason, verified.invalidMessage) };
        if (!verified.transient) config.failed?.remember(key, payloadSha256(call), refusal);
        return refuse(call, refusal.reason, refusal.message);
      }
      const answer = await call.answer().catch(replyForError);
      mark = timing.lap('handler', mark);
      // Charged only for a 200: any other answer goes out as it is, nothing settled.
      if (answer.status !== 200) return answer;
      const recorder = pendingRecorder(call, key, answer);
      const beforeBroadcast = async (transaction: string): Promise<void> => {
        // Nobody would receive the answer: settling now would charge without answering.
        if (call.request.signal.aborted) throw new ServiceError('settlement_failed', 'the caller disconnected before settlement; nothing was charged');
        // On disk before the payment can reach the chain: a crash after the broadcast leaves the
        // record for the retry to resolve, instead of a charge without an answer.
        if (scheme.settlementStatus)
          await recorder.record(call.requirements.network, verified.payer ?? '', transaction).catch((err: unknown) => {
            fault('a pending settlement could not be recorded; the payment was not sent', err);
            if (err instanceof ServiceError && (err.code === 'database_unavailable' || err.code === 'payments_full')) throw err;
            throw new ServiceError(
              'storage_unavailable',
              'the service could not record this payment on its disk before sending it to the chain; nothing was charged; retry later',
            );
          });
      };
      const early = await settleEarly(call, scheme, key, { answer, recorder, beforeBroadcast, timing, payer: verified.payer ?? '' });
      if (early && 'reply' in early) {
        keepClaim = true;
        return early.reply;
      }
      const settled = early ? early.settled : await scheme.settle(call.payment, call.requirements, call.request.signal, beforeBroadcast);
      timing.lap('settle', mark);
      keepClaim = settled.success;
      return await afterSettle(call, key, answer, recorder, settled, timing, verified.payer);
    } catch (err) {
      return replyForError(err);
    } finally {
      if (!keepClaim) await releaseClaim(key);
    }
  }

  /**
   * The early answer, when the scheme reports acceptance and the bounds admit this payer and price:
   * the 200 once the node took the transaction. Null: not admitted, today's path.
   */
  async function settleEarly(
    call: PaidCall,
    scheme: ExactScheme,
    key: string,
    c: { answer: HttpReply; recorder: Recorder; beforeBroadcast: (tx: string) => Promise<void>; timing: PaidTiming; payer: string },
  ) {
    const paid = paidOf(call);
    const ticket = config.early && scheme.reportsAcceptance ? await config.early.answers.admit(c.payer, paid.priceUsdcUnits) : null;
    if (!config.early || !ticket) return null;
    c.recorder.early = true;
    const mark = performance.now();
    const run = { key, payment: call.payment, requirements: call.requirements, signal: call.request.signal };
    const result = await config.early.run(scheme, run, ticket, paid, c.beforeBroadcast, async (transaction) => {
      c.timing.lap('settle', mark);
      const settled = { success: true, transaction, network: call.requirements.network, payer: c.payer, extra: EARLY_EXTRA };
      return deliverAndKeep(call, key, settled, { answer: c.answer, paid, timing: c.timing });
    });
    // Not accepted: today's outcome, and its record (if any) is no early answer's.
    if ('settled' in result) c.recorder.early = false;
    return result;
  }

  /** Gives the claim back before the reply leaves, so an immediate retry finds it free; a fault only delays the retry (the claim's lease). */
  async function releaseClaim(key: string): Promise<void> {
    try {
      await replayGuard.release(key);
    } catch (err) {
      fault('a payment claim could not be released (it frees itself when its lease ends)', err);
    }
  }

  async function resolvePending(call: PaidCall, scheme: ExactScheme, key: string, record: PendingSettlement, timing: PaidTiming): Promise<HttpReply> {
    if (record.payloadSha256 !== payloadSha256(call)) return refuse(call, 'duplicate_settlement', 'another payment with this key is being settled');
    const claim = await replayGuard.acquire(key);
    // Settled, its 200 not kept: while a request here is delivering it (receipt, ledger entry) the retry comes
    // back later; when none is, the process that settled it stopped (a crash): the chain decides, as if pending.
    const takeover = claim === 'settled';
    const busy = claim === 'in_flight' || (takeover && (delivering.has(key) || unkept.has(key)));
    if (busy) return refuse(call, 'duplicate_settlement', 'this payment is being settled by another request');
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
      return await deliverAndKeep(call, key, settled, { answer: replyOf(record.answer), paid: record.paid, timing });
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

  return { settleClaimed, resolvePending, redeliver };
}

/**
 * The exact scheme's machine (exact-machine.ts) for a new payment whose replay key this call
 * holds: verify it, compute the answer, and only for a 200 settle it (early, or waiting for the
 * commitment), then deliver, record it pending (402 `settlement_pending`), or refuse. The claim on
 * the key is given back unless the payment settled.
 */
import { replyForError, type HttpReply } from '../../errors.ts';
import { withSettleFailure } from '../delivery/paid-delivery.ts';
import type { PaidTiming } from '../delivery/paid-timing.ts';
import { refusalSentence } from '../delivery/reason-messages.ts';
import type { ExactScheme } from '../types/exact-scheme.ts';
import type { SettleResult } from '../types/scheme-facilitator.ts';
import { paidOf, payloadSha256, type PaidCall } from '../types/paid-call.ts';
import type { EarlyShare } from '../stores/early-bounds.ts';
import { EARLY_EXTRA, type ExactRun, SETTLEMENT_PENDING } from './exact-run.ts';
import { callerStayed, createPendingRecorder, type PendingRecorder } from './pending-recorder.ts';

/** A verified payment's 200, ready to be paid for: what it answers, who pays, and the timing mark after the handler. */
interface Answered {
  readonly answer: HttpReply;
  readonly payer: string;
  readonly mark: number;
}

/** Whether the claim on the key is kept: set where the payment is known settled, before anything after can fail. */
interface ClaimHold {
  keepClaim: boolean;
}

/** A new payment whose key this call holds: verify, answer, settle a 200; the claim is given back unless it settled. */
export async function settleClaimed(run: ExactRun, call: PaidCall, scheme: ExactScheme, key: string, timing: PaidTiming): Promise<HttpReply> {
  const hold: ClaimHold = { keepClaim: false };
  try {
    const answered = await verifyAndAnswer(run, call, scheme, key, timing);
    if ('reply' in answered) return answered.reply;
    return await settleAnswered(run, call, scheme, key, timing, answered, hold);
  } catch (err) {
    return replyForError(err);
  } finally {
    if (!hold.keepClaim) await run.releaseClaim(key);
  }
}

/** Verifies the payment, then runs the handler: a refusal or a non-200 is the reply, nothing settled. */
async function verifyAndAnswer(
  run: ExactRun,
  call: PaidCall,
  scheme: ExactScheme,
  key: string,
  timing: PaidTiming,
): Promise<Answered | { readonly reply: HttpReply }> {
  let mark = performance.now();
  const verified = await scheme.verify(call.payment, call.requirements, call.request.signal);
  // The scheme reports its chain check (simulation) apart: the rest of verify is our own work.
  const simulateMs = verified.simulateMs ?? 0;
  mark = timing.lap('verify', mark + simulateMs);
  if (verified.simulateMs !== undefined) timing.add('simulate', simulateMs);
  if (!verified.isValid) {
    const reason = verified.invalidReason ?? 'invalid_payment';
    const refused = { reason, message: refusalSentence(reason, verified.invalidMessage) };
    if (!verified.transient) run.config.failed.remember(key, payloadSha256(call), refused);
    return { reply: run.refuse(call, refused.reason, refused.message) };
  }
  const answer = await call.answer().catch(replyForError);
  mark = timing.lap('handler', mark);
  // Charged only for a 200: any other answer goes out as it is, nothing settled.
  if (answer.status !== 200) return { reply: answer };
  return { answer, payer: verified.payer ?? '', mark };
}

/** Settles a verified payment's 200 (early when the bounds admit it), then delivers it, records it pending, or refuses. */
async function settleAnswered(
  run: ExactRun,
  call: PaidCall,
  scheme: ExactScheme,
  key: string,
  timing: PaidTiming,
  { answer, payer, mark }: Answered,
  hold: ClaimHold,
): Promise<HttpReply> {
  const recorder = createPendingRecorder(run.config.pending, call, key, answer);
  const early = await settleEarly(run, call, scheme, key, { answer, recorder, timing, payer });
  if (early && 'reply' in early) {
    hold.keepClaim = true;
    return early.reply;
  }
  const settled = early
    ? early.settled
    : await scheme.settle(
        call.payment,
        call.requirements,
        call.request.signal,
        recordBeforeBroadcast(run, call, scheme, recorder, payer, timing),
        run.sent(recorder, timing),
      );
  timing.lap('settle', mark);
  hold.keepClaim = settled.success;
  if (settled.success) run.credit(scheme, settled.payer || payer, call);
  return await afterSettle(run, call, key, answer, recorder, settled, timing, payer);
}

/** What `settle` calls right before the payment can first reach the chain. */
function recordBeforeBroadcast(run: ExactRun, call: PaidCall, scheme: ExactScheme, recorder: PendingRecorder, payer: string, timing: PaidTiming) {
  return async (transaction: string): Promise<void> => {
    callerStayed(call);
    // On disk before the payment can reach the chain: a crash after the broadcast leaves the
    // record for the retry to resolve, instead of a charge without an answer.
    const writing = performance.now();
    if (scheme.settlementStatus) await recorder.record(call.requirements.network, payer, transaction).catch(run.unrecorded);
    recorder.sentAt = timing.lap('record', writing);
  };
}

/**
 * The early answer, when the scheme reports acceptance and the price is at or below the ceiling:
 * at the broadcast the bounds decide, the pending record (an early answer's when admitted) in the
 * same commit; admitted, the 200 once the node took the transaction. Null: the confirmed path.
 */
async function settleEarly(
  run: ExactRun,
  call: PaidCall,
  scheme: ExactScheme,
  key: string,
  c: { answer: HttpReply; recorder: PendingRecorder; timing: PaidTiming; payer: string },
) {
  const paid = paidOf(call);
  const early = run.config.early;
  if (!early || !scheme.reportsAcceptance || !scheme.settlementStatus || !early.answers.eligible(c.payer, paid.priceUsdcUnits)) return null;
  const { network } = call.requirements;
  const ask = { key, payer: c.payer, units: paid.priceUsdcUnits, feeUnits: scheme.failureFeeUnits?.(call.payment) ?? 0 };
  const settledBy = (transaction: string) => ({ success: true, transaction, network, payer: c.payer, extra: EARLY_EXTRA });
  // A handed-off answer's 200, made durable with its record before the broadcast (handed-off-commit.ts).
  let built: HttpReply | null = null;
  const record = (transaction: string) => (share: EarlyShare | null, handOff: boolean) => {
    const write = c.recorder.stage(network, c.payer, transaction, share);
    if (!share || !handOff) return write;
    const h = {
      call,
      key,
      settled: settledBy(transaction),
      answer: c.answer,
      paid,
      timing: c.timing,
      built: (r: HttpReply) => {
        built = r;
      },
    };
    return run.handedOff(write, h) ?? write;
  };
  const admit = async (transaction: string) => {
    callerStayed(call);
    const writing = performance.now();
    const ticket = await early.answers.admit(ask, record(transaction)).catch(run.unrecorded);
    c.recorder.sentAt = c.timing.lap('record', writing);
    return ticket;
  };
  const mark = performance.now();
  const payment = { key, payment: call.payment, requirements: call.requirements, signal: call.request.signal };
  const answerEarly = async (transaction: string) => {
    c.timing.lap('settle', mark);
    return built ?? (await run.deliver(call, key, settledBy(transaction), c.answer, paid, c.timing, true));
  };
  const result = await early.run(scheme, payment, paid, admit, answerEarly, run.sent(c.recorder, c.timing));
  // Not answered early: the confirmed path's outcome, and its record (if any) is no early answer's.
  if ('settled' in result) c.recorder.early = false;
  return result;
}

/** After `settle`: deliver, keep the record of a pending one, or drop it when nothing was charged. */
async function afterSettle(
  run: ExactRun,
  call: PaidCall,
  key: string,
  answer: HttpReply,
  recorder: PendingRecorder,
  settled: SettleResult,
  timing: PaidTiming,
  payer: string,
) {
  if (settled.success) return run.deliver(call, key, settled, answer, paidOf(call), timing, recorder.recorded);
  if (settled.errorReason === SETTLEMENT_PENDING && recorder.recorded) {
    // Now with what the broadcast told (the EVM hash, the payer), for the answer's PAYMENT-RESPONSE.
    await recorder.record(settled.network, settled.payer || payer, settled.transaction);
    return run.notConfirmed(call, `${settled.transaction || '(hash unknown)'} was sent but is`);
  }
  // Definitely not charged (refused, failed on chain): nothing left to resolve.
  if (recorder.recorded) await run.config.pending.resolve(key);
  const reason = settled.errorReason ?? 'settlement_failed';
  if (settled.refused) run.config.failed.remember(key, payloadSha256(call), { reason, message: refusalSentence(reason, settled.errorMessage) });
  return withSettleFailure(run.refuse(call, reason, refusalSentence(reason, settled.errorMessage)), settled);
}

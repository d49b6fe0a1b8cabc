/**
 * What every step of the exact scheme's state machine (exact-machine.ts) shares: its stores, how it
 * refuses and delivers, and the keys this process is delivering now. The steps are functions over
 * this one object, so a payment is followed through them without closures handed from file to file.
 */
import type { HttpReply } from '../../errors.ts';
import type { ReceiptStamp } from '../delivery/paid-delivery.ts';
import type { PaidTiming } from '../delivery/paid-timing.ts';
import type { ChallengeBuilder } from '../delivery/payment-terms.ts';
import type { FailedPayments } from '../stores/failed-payments.ts';
import { replyOf, type PendingSettlement, type PendingSettlements, type StoredAnswer } from '../stores/pending-settlements.ts';
import type { ReplayGuard } from '../stores/replay-guard.ts';
import type { ExactSchemeFacilitator } from '../types/scheme-facilitator.ts';
import { paidOf, payloadSha256, type PaidCall } from '../types/paid-call.ts';
import type { EarlySettlement } from './early-settlement.ts';
import type { StagedWrite } from '../../durable/staged-write.ts';
import { createExactDelivery } from './exact-delivery.ts';
import { canCommitHandedOff, type HandedOff, handedOffWrite } from './handed-off-commit.ts';
import { type PendingRecorder, unrecordedFault } from './pending-recorder.ts';

export const SETTLEMENT_PENDING = 'settlement_pending';
/** The early 200's PAYMENT-RESPONSE says what is known: the node accepted the transaction, not yet confirmed. */
export const EARLY_EXTRA = Object.freeze({ settlement: 'submitted' });

/** Where the exact scheme's machine keeps what outlives a call, and how it answers. */
export interface ExactMachineConfig {
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

/** The machine's shared part, handed to each step. */
export interface ExactRun {
  readonly config: ExactMachineConfig;
  refuse(call: PaidCall, reason: string, message?: string): HttpReply;
  /** The 402 `settlement_pending` naming the transaction (`tx` reads "<id> is" or "<id> was sent but is"). */
  notConfirmed(call: PaidCall, tx: string): HttpReply;
  /** A pending record that could not be written: nothing is broadcast (pending-recorder.ts). */
  readonly unrecorded: (err: unknown) => never;
  /**
   * Keys whose 200 this process is delivering now (marked settled, not kept yet), and keys whose
   * 200 went out but could not be kept: a retry finding one settled comes back later. A settled
   * key in neither, with no 200 kept, was left by a process that stopped in between.
   */
  readonly delivering: Set<string>;
  readonly unkept: Set<string>;
  readonly deliver: ReturnType<typeof createExactDelivery>;
  /** A handed-off early answer's one commit around its pending record (handed-off-commit.ts); null when its store cannot carry it. */
  handedOff(record: StagedWrite, h: HandedOff): StagedWrite | null;
  releaseClaim(key: string): Promise<void>;
  /** A payment confirmed on a chain whose calls may be answered early: its payer's history grows (early-answers.ts). */
  credit(scheme: Pick<ExactSchemeFacilitator, 'reportsAcceptance'>, payer: string, call: PaidCall): void;
  /** Times `send`: from the record's durable write to the node's acceptance of the transaction. */
  sent(recorder: PendingRecorder, timing: PaidTiming): () => void;
}

/** The route's 402 naming why the payment was refused. */
export function refusal(challengeFor: (path: string) => ChallengeBuilder, call: PaidCall, reason: string, message?: string): HttpReply {
  return challengeFor(call.entry.path).reply(call.resourceUrl, message ? `${reason}: ${message}` : reason);
}

export function createExactRun(config: ExactMachineConfig): ExactRun {
  const { replayGuard, pending, fault } = config;
  const refuse = (call: PaidCall, reason: string, message?: string): HttpReply => refusal(config.challengeFor, call, reason, message);
  const delivering = new Set<string>();
  const unkept = new Set<string>();
  const delivery = { replayGuard, pending, stamp: config.stamp, fault, delivering, unkept };
  return {
    config,
    refuse,
    notConfirmed: (call, tx) => refuse(call, SETTLEMENT_PENDING, `transaction ${tx} not confirmed yet; retry the same payment to get the answer once it lands`),
    unrecorded: unrecordedFault(fault),
    delivering,
    unkept,
    deliver: createExactDelivery(delivery),
    handedOff: (record, h) => (canCommitHandedOff(delivery, record) ? handedOffWrite(delivery, record, h) : null),
    // Given back before the reply leaves, so an immediate retry finds it free; a fault only delays the retry (the claim's lease).
    async releaseClaim(key) {
      try {
        await replayGuard.release(key);
      } catch (err) {
        fault('a payment claim could not be released (it frees itself when its lease ends)', err);
      }
    },
    credit(scheme, payer, call) {
      if (config.early && scheme.reportsAcceptance) config.early.answers.credit(payer, paidOf(call).priceUsdcUnits);
    },
    sent: (recorder, timing) => (): void => timing.add('send', performance.now() - recorder.sentAt),
  };
}

/** A retry of a settled payment whose 200 its caller never received: that 200 again, nothing charged. */
export function redeliver(run: ExactRun, call: PaidCall, record: PendingSettlement & { readonly delivered: StoredAnswer }): HttpReply {
  // The same transaction under another payload, or sent for another request, is not this
  // payment's retry: the kept answer is the one it bought, for the request it was made for.
  if (record.payloadSha256 !== payloadSha256(call)) return run.refuse(call, 'duplicate_settlement', 'this payment was already settled');
  if (record.paid.originalUrl !== paidOf(call).originalUrl)
    return run.refuse(call, 'duplicate_settlement', `this payment was already settled for ${record.paid.originalUrl.slice(0, 256)}`);
  return replyOf(record.delivered);
}

/**
 * The pending record of one exact settlement (state/pending-settlements.ts), written before its
 * payment can reach the chain and rewritten when the broadcast tells more: a crash after the
 * broadcast leaves the record for the retry to resolve, instead of a charge without an answer.
 * An early answer's record carries its payment and its share of the bounds, for a restart to
 * follow it; that record is staged, to ride in the admission's commit (early-settlement.ts).
 */
import type { StagedWrite } from '../../durable/staged-write.ts';
import { type HttpReply, ServiceError } from '../../errors.ts';
import type { EarlyShare } from '../stores/early-bounds.ts';
import { type PendingSettlement, type PendingSettlements, stagedRecord, storableAnswer } from '../stores/pending-settlements.ts';
import { paidOf, payloadSha256, type PaidCall } from '../types/paid-call.ts';

export interface PendingRecorder {
  /** A record was written (or staged) for this settlement. */
  recorded: boolean;
  /** When the record was durable and the broadcast began (performance.now()), for `send`'s timing. */
  sentAt: number;
  /** The record is an early answer's (its payment followed after a restart). */
  early: boolean;
  record(network: string, payer: string, transaction: string): Promise<void>;
  /** The record staged, as an early answer's when `share` is given. */
  stage(network: string, payer: string, transaction: string, share: EarlyShare | null): StagedWrite;
}

/** The recorder of the settlement of `call` under `key`, whose computed answer is `answer`. */
export function createPendingRecorder(
  pending: Pick<PendingSettlements, 'record' | 'stageRecord'>,
  call: PaidCall,
  key: string,
  answer: HttpReply,
): PendingRecorder {
  const recordOf = (network: string, payer: string, transaction: string, early: PendingSettlement['early']): PendingSettlement => ({
    network,
    transaction,
    payer,
    payloadSha256: payloadSha256(call),
    answer: storableAnswer(answer),
    paid: paidOf(call),
    recordedAt: Date.now(),
    ...(early ? { early } : {}),
  });
  const recorder: PendingRecorder = {
    recorded: false,
    sentAt: 0,
    early: false,
    record(network, payer, transaction) {
      recorder.recorded = true;
      return pending.record(key, recordOf(network, payer, transaction, recorder.early ? { payment: call.payment } : undefined), call.request.client);
    },
    stage(network, payer, transaction, share) {
      recorder.recorded = true;
      recorder.early = share !== null;
      const early = share ? { payment: call.payment, feeUnits: share.feeUnits, trusted: share.trusted } : undefined;
      return stagedRecord(pending, key, recordOf(network, payer, transaction, early), call.request.client);
    },
  };
  return recorder;
}

/** Nobody would receive the answer: settling now would charge without answering. */
export function callerStayed(call: PaidCall): void {
  if (call.request.signal.aborted) throw new ServiceError('settlement_failed', 'the caller disconnected before settlement; nothing was charged');
}

/** A record that could not be written stops the broadcast (nothing was charged): the fault to answer with, reported. */
export function unrecordedFault(fault: (what: string, err: unknown) => void) {
  return (err: unknown): never => {
    fault('a pending settlement could not be recorded; the payment was not sent', err);
    if (err instanceof ServiceError && (err.code === 'database_unavailable' || err.code === 'payments_full')) throw err;
    throw new ServiceError(
      'storage_unavailable',
      'the service could not record this payment on its disk before sending it to the chain; nothing was charged; retry later',
    );
  };
}

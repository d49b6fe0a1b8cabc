/**
 * The one durable commit of a handed-off early answer (docs/payments.md#the-hand-off): its pending
 * settlement record (with the bounds' admission), the replay record, the receipt's ledger entry
 * and the kept 200 are made durable together, before the broadcast; then the transaction is sent,
 * then the 200 leaves. A stop between the commit and the send leaves a receipt whose payment was
 * not sent yet: the restart sends the recorded transaction again (early-settlement.ts `recover`).
 */
import type { StagedWrite } from '../../durable/staged-write.ts';
import { type HttpReply, ServiceError } from '../../errors.ts';
import type { StampedReceipts } from '../delivery/paid-delivery.ts';
import type { PaidTiming } from '../delivery/paid-timing.ts';
import type { SettleResult } from '../types/scheme-facilitator.ts';
import type { PaidCall, PaidResource } from '../types/paid-call.ts';
import { type ExactDeliveryConfig, paidBy, replyWith } from './exact-delivery.ts';

/** One handed-off answer: what it answers, with what settlement, and where its 200 goes once durable. */
export interface HandedOff {
  readonly call: PaidCall;
  readonly key: string;
  readonly settled: SettleResult;
  readonly answer: HttpReply;
  readonly paid: PaidResource;
  readonly timing: PaidTiming;
  /** Told the 200 once its commit is durable (or, its receipt not issued, once the record is). */
  readonly built: (reply: HttpReply) => void;
}

/** Settles `write` at most once (the ledger settles it in its commit; a failure before may not reach it). */
function once(write: StagedWrite): StagedWrite {
  let done = false;
  return {
    ...write,
    commitAlone: () => write.commitAlone(),
    settle(err) {
      if (done) return;
      done = true;
      write.settle(err);
    },
  };
}

/**
 * Whether `record` can carry the answer's writes: its store commits through the journal (files),
 * where the ledger and the replay and kept-answer stores commit too, and those stores can stage.
 */
export function canCommitHandedOff(config: ExactDeliveryConfig, record: StagedWrite): boolean {
  return (
    record.journal !== undefined && record.sql === undefined && config.replayGuard.stageSettled !== undefined && config.pending.stageDelivered !== undefined
  );
}

/**
 * The write the early book commits for a handed-off answer: `record` rides first in the
 * receipt's ledger commit, with the replay record and the kept 200. `commitAlone` throws when the
 * record did not become durable (nothing is then sent: the call's fault, the share given back).
 */
export function handedOffWrite(config: ExactDeliveryConfig, record: StagedWrite, h: HandedOff): StagedWrite {
  const { replayGuard, pending, stamp, fault, delivering, unkept } = config;
  const first = once(record);
  return {
    async commitAlone() {
      delivering.add(h.key);
      try {
        let reply: HttpReply | null = null;
        const build = (stamped: StampedReceipts) => {
          reply = replyWith(h.answer, h.settled, stamped);
          return [replayGuard.stageSettled!(h.key), pending.stageDelivered!(h.key, reply), ...(h.call.alsoKeep?.(reply) ?? [])];
        };
        const stamped = await stamp(h.paid, h.settled.network, h.answer, h.timing, paidBy(h.call, h.settled), { build, charge: [first] });
        if (stamped.refused !== undefined) {
          first.settle(stamped.refused);
          throw new ServiceError('storage_unavailable', 'the payment could not be recorded before its broadcast; nothing was charged; retry later');
        }
        if (stamped.kept && reply) return h.built(reply);
        // The record is durable (it rode with the entry), the receipt's writes are not: as any
        // delivery whose commit failed, the replay record and the 200 are written on their own.
        const alone = replyWith(h.answer, h.settled, stamped);
        await replayGuard.markSettled(h.key).catch((err: unknown) => fault('replay record write failed before a handed-off send', err));
        await pending.keepDelivered(h.key, alone).catch((err: unknown) => {
          unkept.add(h.key);
          fault('a handed-off answer could not be kept for its retry', err);
        });
        h.built(alone);
      } finally {
        delivering.delete(h.key);
      }
    },
    settle: () => undefined,
  };
}

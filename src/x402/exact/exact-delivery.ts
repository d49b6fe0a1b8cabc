/**
 * The last step of the exact scheme, once the money moved (exact-machine.ts): the replay
 * record settled, the receipts issued (ours appends the ledger entry), the 200 kept for its
 * identical retry, all in one durable commit when the stores can stage their writes (the files
 * on the data directory's commit journal, the database's in the ledger batch's transaction); in
 * their own writes otherwise.
 */
import type { HttpReply } from '../../errors.ts';
import { paymentResponseHeader, type ReceiptStamp, type StampedReceipts } from '../delivery/paid-delivery.ts';
import type { PaidTiming } from '../delivery/paid-timing.ts';
import type { PendingSettlements } from '../stores/pending-settlements.ts';
import type { ReplayGuard } from '../stores/replay-guard.ts';
import type { SettleResult } from '../types/scheme-facilitator.ts';
import type { PaidCall, PaidResource } from '../types/paid-call.ts';

export interface ExactDeliveryConfig {
  readonly replayGuard: Pick<ReplayGuard, 'markSettled' | 'stageSettled'>;
  readonly pending: Pick<PendingSettlements, 'keepDelivered' | 'stageDelivered'>;
  readonly stamp: ReceiptStamp;
  readonly fault: (what: string, err: unknown) => void;
  /** Keys whose 200 this process is delivering now (shared with the state machine's retries). */
  readonly delivering: Set<string>;
  /** Keys whose 200 went out but could not be kept: this process never sends them twice. */
  readonly unkept: Set<string>;
}

/** The paid 200: the answer with PAYMENT-RESPONSE and the receipts' headers. */
export const replyWith = (answer: HttpReply, settled: SettleResult, stamped: StampedReceipts): HttpReply => ({
  ...answer,
  headers: { ...answer.headers, 'PAYMENT-RESPONSE': paymentResponseHeader(settled, stamped.extensions), ...stamped.headers },
});

/** Who paid for what, as the x402 offer-receipt names it (none without a payer). */
export const paidBy = (call: PaidCall, settled: SettleResult) => (settled.payer ? { resourceUrl: call.resourceUrl, payer: settled.payer } : undefined);

/** Delivers a settled payment's 200: `deliver(call, key, settled, answer, paid, timing, keep)`. */
export function createExactDelivery(config: ExactDeliveryConfig) {
  const { replayGuard, pending, stamp, fault, delivering, unkept } = config;

  /**
   * The money moved: mark the replay record settled, issue the receipts (ours appends the ledger
   * entry), answer with PAYMENT-RESPONSE, and (`keep`: the settlement has a record) keep the 200
   * with its record for the identical retry, whether or not the caller was seen to go: a dropped
   * connection is often noticed only after its 200 was written into the dead socket, and the payer
   * was charged. Nothing here withholds the 200. From the mark to the keeping the key is in
   * `delivering`; a 200 that could not be kept stays `unkept`, so this process never sends it twice.
   */
  async function deliver(call: PaidCall, key: string, settled: SettleResult, answer: HttpReply, paid: PaidResource, timing: PaidTiming, keep: boolean) {
    delivering.add(key);
    try {
      if (replayGuard.stageSettled && (!keep || pending.stageDelivered)) return await deliverOnce(call, key, settled, answer, paid, timing, keep);
      // Stores that cannot stage: the replay record beside the receipts, the 200
      // after both, then the 200 kept; the claim is settled in memory at once, so a concurrent copy
      // is refused whichever write lands first.
      const marked = markAlone(key);
      const [stamped] = await Promise.all([stamp(paid, settled.network, answer, timing, paidBy(call, settled)), marked]);
      const reply = replyWith(answer, settled, stamped);
      if (keep) await keepAlone(call, key, reply);
      return reply;
    } finally {
      delivering.delete(key);
    }
  }

  const markAlone = (key: string): Promise<void> =>
    replayGuard.markSettled(key).catch((err: unknown) => fault('replay record write failed after settlement (the chain still refuses a replay)', err));

  /** The 200 kept for its retry on its own; one that cannot be kept stays `unkept`. */
  const keepAlone = (call: PaidCall, key: string, reply: HttpReply): Promise<void> => {
    const gone = call.request.signal.aborted ? ' the caller did not receive' : '';
    return pending.keepDelivered(key, reply).catch((err: unknown) => {
      unkept.add(key);
      fault(`a settled answer${gone} could not be kept for its retry`, err);
    });
  };

  /**
   * `deliver` in one durable commit: the replay record, the receipt's ledger entry, the 200 kept
   * with its record (and the payment-identifier's copy) together. A commit that fails is reported
   * and its writes are tried on their own; the 200 goes out either way (the money moved).
   */
  async function deliverOnce(call: PaidCall, key: string, settled: SettleResult, answer: HttpReply, paid: PaidResource, timing: PaidTiming, keep: boolean) {
    let built: HttpReply | null = null;
    const build = (stamped: StampedReceipts) => {
      const reply = replyWith(answer, settled, stamped);
      built = reply;
      const writes = [replayGuard.stageSettled!(key), ...(keep ? [pending.stageDelivered!(key, reply)] : [])];
      return [...writes, ...(call.alsoKeep?.(reply) ?? [])];
    };
    const stamped = await stamp(paid, settled.network, answer, timing, paidBy(call, settled), { build });
    if (stamped.kept && built) return built;
    const reply = replyWith(answer, settled, stamped);
    await markAlone(key);
    if (keep) await keepAlone(call, key, reply);
    return reply;
  }

  return deliver;
}

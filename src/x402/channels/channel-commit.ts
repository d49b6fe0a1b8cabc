/**
 * How a channel's 200 is committed: in one durable commit, the charge (the channel's next
 * revision: the voucher's ceiling charged), the receipt's ledger entry and the answer kept for the
 * identical retry, when the store can stage its writes (the file store on the data directory's
 * commit journal; the database's in the ledger batch's transaction). A voucher's charge is staged
 * before the receipt is issued and handed to the ledger as what the entry depends on, so a charge
 * that cannot be made (another instance charged first, no room) is refused before any entry
 * exists; a commit that fails charged nothing and the voucher is refused. Once the charge and the
 * entry are durable the answer goes out, even when its keeping failed (its retry is answered again).
 *
 * A store that cannot stage commits in two durable steps: the charge first, its
 * answer marked pending, then the receipt and ledger entry, then the answer kept. A process
 * stopped (or a write failed) between the two leaves the charge stored and the answer pending: the
 * payer's retry of that same voucher for that same resource has the answer computed again and
 * delivered here, without charging again (channel-machine.ts).
 */
import { errorReply, type HttpReply, replyForError, ServiceError } from '../../errors.ts';
import type { ChannelPayload } from './channel-payload.ts';
import { channelStateOf, withChannelResponse } from './channel-replies.ts';
import { ChannelConflictError, type ChannelRecord, type ChannelStore } from './channel-store.ts';
import { paidOf, type PaidCall } from '../types/paid-call.ts';
import type { ReceiptStamp, StampedReceipts } from '../delivery/paid-delivery.ts';
import type { PaidTiming } from '../delivery/paid-timing.ts';
import type { StagedWrite } from '../../durable/staged-write.ts';
import { storableAnswer } from '../stores/pending-settlements.ts';

/** What moved on chain for the 200: a deposit's transaction and amount, or nothing ('' and '') for a voucher. */
export interface ChannelMoved {
  readonly transaction: string;
  readonly amount: string;
}

export const NOTHING_MOVED: ChannelMoved = { transaction: '', amount: '' };

export interface ChannelCommitConfig {
  readonly store: ChannelStore;
  readonly stamp: ReceiptStamp;
  readonly now: () => number;
  readonly fault: (what: string, err: unknown) => void;
  /** The channel's refusal (402) with a reason. */
  readonly refuse: (call: PaidCall, reason: string, message?: string) => HttpReply;
  /** Runs after a 200 is delivered: renews the channel's mirror in the background when it is getting old. */
  readonly delivered: (id: string, syncedAt: number) => void;
  /** The reason of a write lost to another instance's. */
  readonly busyReason: string;
}

export interface ChannelCommit {
  /** A 200 of `rec`'s channel paid by `p`: the charge stored, then delivered. */
  commit(call: PaidCall, id: string, rec: ChannelRecord, p: ChannelPayload, answer: HttpReply, moved: ChannelMoved, timing: PaidTiming): Promise<HttpReply>;
  /** Receipt, ledger entry and the answer kept, for `stored`: the channel as stored, its charge made and this answer pending. */
  deliver(call: PaidCall, id: string, stored: ChannelRecord, answer: HttpReply, moved: ChannelMoved, timing: PaidTiming): Promise<HttpReply>;
}

/**
 * Whether `p` is the identical retry of the voucher `known` last charged, for the same resource:
 * its answer is the kept 200, or, pending, the answer computed again; never a second charge.
 */
export const isRetryOf = (call: PaidCall, p: ChannelPayload, known: ChannelRecord): boolean =>
  known.last !== null &&
  p.voucher.signature === known.signature &&
  p.voucher.maxClaimableAmount === known.signedMax &&
  known.last.resource === paidOf(call).originalUrl;

const unstoredVoucher = (): HttpReply => errorReply({ error: 'storage_unavailable', message: 'the channel charge could not be stored; nothing was charged' });

/** The x402 SettleResponse of a channel's 200. */
function responseOf(call: PaidCall, id: string, stored: ChannelRecord, moved: ChannelMoved) {
  const extra = { chargedAmount: call.requirements.amount, channelState: channelStateOf(id, stored) };
  return { success: true, transaction: moved.transaction, network: call.requirements.network, payer: stored.payer, amount: moved.amount, extra };
}

/** Creates the commit step of the channel processor. */
export function createChannelCommit(config: ChannelCommitConfig): ChannelCommit {
  const { store } = config;

  /** The charge made durable; a refusal when a voucher's charge could not be stored (no ledger entry, nothing charged). */
  async function storeCharge(call: PaidCall, id: string, next: ChannelRecord, transaction: string): Promise<HttpReply | null> {
    try {
      await store.put(id, next, call.request.client);
      return null;
    } catch (err) {
      // Another request (on another instance) charged this channel first: this voucher is refused, not charged.
      if (err instanceof ChannelConflictError && transaction === '') return config.refuse(call, config.busyReason, err.message);
      config.fault(`channel ${id} charge not stored`, err);
      // A deposit moved money on chain: its answer goes out. A voucher's charge exists only in our record: no record, no charge, no 200.
      if (transaction !== '') return null;
      if (err instanceof ServiceError) return replyForError(err);
      return unstoredVoucher();
    }
  }

  async function deliver(call: PaidCall, id: string, stored: ChannelRecord, answer: HttpReply, moved: ChannelMoved, timing: PaidTiming): Promise<HttpReply> {
    const response = responseOf(call, id, stored, moved);
    const paid = paidOf(call);
    const receipt = await config.stamp(paid, call.requirements.network, answer, timing, { resourceUrl: call.resourceUrl, payer: stored.payer });
    const reply = withChannelResponse(answer, response, receipt);
    await store
      .put(id, { ...stored, last: { resource: paid.originalUrl, answer: storableAnswer(reply) } })
      .catch((err: unknown) => config.fault(`channel ${id} answer not kept for its retry`, err));
    config.delivered(id, stored.syncedAt);
    return reply;
  }

  /** The refusal of a charge that cannot be staged: another request's charge won, or no room. */
  function unstageable(call: PaidCall, id: string, err: unknown): HttpReply {
    if (err instanceof ChannelConflictError) return config.refuse(call, config.busyReason, err.message);
    config.fault(`channel ${id} charge not staged`, err);
    return err instanceof ServiceError ? replyForError(err) : unstoredVoucher();
  }

  /** Charge, receipt, ledger entry and kept answer in one durable commit (the store stages its writes). */
  async function commitOnce(call: PaidCall, id: string, next: ChannelRecord, answer: HttpReply, moved: ChannelMoved, timing: PaidTiming): Promise<HttpReply> {
    let charge: readonly StagedWrite[];
    try {
      charge = store.stage!(id, next, call.request.client);
    } catch (err) {
      return unstageable(call, id, err);
    }
    const stored = { ...next, rev: next.rev + 1 };
    const paid = paidOf(call);
    const response = responseOf(call, id, stored, moved);
    const voucher = moved.transaction === '';
    let built: HttpReply | null = null;
    const build = (stamped: StampedReceipts) => {
      const reply = withChannelResponse(answer, response, stamped);
      built = reply;
      // At the charge's revision: in one transaction the second statement follows the first.
      const kept = store.stage!(id, { ...stored, last: { resource: paid.originalUrl, answer: storableAnswer(reply) } });
      // A deposit's charge rides with its answer, not before its entry: its money moved, so its entry is written regardless.
      return [...(voucher ? [] : charge), ...kept, ...(call.alsoKeep?.(reply) ?? [])];
    };
    const stamped = await config.stamp(
      paid,
      call.requirements.network,
      answer,
      timing,
      { resourceUrl: call.resourceUrl, payer: stored.payer },
      { build, ...(voucher ? { charge } : {}) },
    );
    if (voucher && stamped.refused !== undefined) return refusedCharge(call, id, stamped.refused);
    if (!stamped.kept) {
      // A deposit's charge not made durable leaves memory (a restart would not know it); a voucher's is settled by its commit.
      if (!voucher) for (let i = charge.length - 1; i >= 0; i--) charge[i]!.settle(new Error('not committed'));
      const what = voucher
        ? 'answer not kept (its identical retry is answered again)'
        : 'charge and answer not committed (the deposit moved on chain; answered)';
      config.fault(`channel ${id} ${what}`, new Error('not kept'));
    }
    config.delivered(id, stored.syncedAt);
    // The reply kept is the reply sent, byte for byte.
    return (stamped.kept && built) || withChannelResponse(answer, response, stamped);
  }

  /** A voucher whose charge was not made (and so no entry): busy when another request charged the channel first. */
  function refusedCharge(call: PaidCall, id: string, why: unknown): HttpReply {
    if (why instanceof ChannelConflictError) return config.refuse(call, config.busyReason, why.message);
    config.fault(`channel ${id} charge and answer not committed`, why);
    return why instanceof ServiceError ? replyForError(why) : unstoredVoucher();
  }

  return {
    async commit(call, id, rec, p, answer, moved, timing) {
      const [t, max] = [config.now(), p.voucher.maxClaimableAmount];
      const next: ChannelRecord = {
        ...rec,
        charged: max,
        signedMax: max,
        signature: p.voucher.signature,
        lastRequestAt: t,
        unclaimedSince: rec.unclaimedSince || t,
        // Pending until kept: the previous answer must not pass for this voucher's, and this voucher's retry finds its charge made.
        last: { resource: paidOf(call).originalUrl, answer: null, ...(moved.transaction === '' ? {} : { moved }) },
      };
      if (store.stage) return commitOnce(call, id, next, answer, moved, timing);
      const unstored = await storeCharge(call, id, next, moved.transaction);
      if (unstored) return unstored;
      return deliver(call, id, { ...next, rev: next.rev + 1 }, answer, moved, timing);
    },
    deliver,
  };
}

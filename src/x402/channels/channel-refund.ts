/**
 * A payer's cooperative refund over its channel: a zero-charge voucher (its ceiling is exactly
 * what we charged) asks for the unspent escrow back, at once, instead of the timed withdrawal.
 * The paid resource is not run. We complete the payload (the refund nonce, a claim row for what
 * we earned so it is claimed in the same step) and the facilitator claims and refunds on chain,
 * signing both authorizations with our receiver authorizer key. A full refund forgets the channel.
 */
import type { HttpReply } from '../../errors.ts';
import { type ChannelFacilitator, claimEntry } from './channel-facilitator.ts';
import { CHANNEL_REASONS, type ChannelPayload } from './channel-payload.ts';
import { channelStateOf, failedOnChain, withChannelResponse } from './channel-replies.ts';
import { isPublished, type SignerProof } from './channel-signer-proof.ts';
import { refundInFlight } from './channel-closed.ts';
import { ChannelConflictError, type ChannelRecord, type ChannelStore } from './channel-store.ts';
import type { PaidCall } from '../types/paid-call.ts';
import { refusalSentence } from '../delivery/reason-messages.ts';
import { PAID_ANSWER_HEADERS } from '../delivery/paid-delivery.ts';

export interface ChannelRefundConfig {
  readonly store: ChannelStore;
  readonly facilitator: ChannelFacilitator;
  readonly refuse: (call: PaidCall, reason: string, message?: string) => HttpReply;
  readonly corrective: (call: PaidCall, id: string, rec: ChannelRecord) => HttpReply;
  /** Null when the payload is proven to come from the channel's signer, else the reason. */
  readonly signerProof: SignerProof;
  readonly now: () => number;
  readonly fault: (what: string, err: unknown) => void;
}

/** Creates the refund step (run inside the channel's queue). */
export function createChannelRefund(config: ChannelRefundConfig) {
  const { store, facilitator, refuse } = config;

  /** `rec` with the refund's mark, as stored at its new revision; null when another write came first. */
  async function markRefund(id: string, rec: ChannelRecord): Promise<ChannelRecord | null> {
    const marked: ChannelRecord = { ...rec, refunding: { at: config.now() } };
    try {
      await store.put(id, marked);
    } catch (err) {
      if (err instanceof ChannelConflictError) return null;
      throw err;
    }
    return { ...marked, rev: rec.rev + 1 };
  }
  /** Sends the refund of a channel whose record is `rec` (the voucher proven, its ceiling what we charged), marked first. */
  async function sendRefund(call: PaidCall, p: ChannelPayload & { type: 'refund' }, id: string, rec: ChannelRecord, remainder: bigint): Promise<HttpReply> {
    // Marked first, durably, at a new revision: a voucher another instance charges meanwhile loses
    // its commit to the mark (or this refund loses to that voucher), so nothing is charged and
    // answered against the escrow this refund gives back (channel-closed.ts).
    const marked = await markRefund(id, rec);
    if (!marked) return refuse(call, CHANNEL_REASONS.channelBusy, 'the channel changed meanwhile; retry');
    const amount = p.amount ?? remainder.toString();
    const claims = [claimEntry(p.channelConfig, rec.charged, p.voucher.signature, rec.charged)];
    const completed = { type: 'refund', channelConfig: p.channelConfig, voucher: p.voucher, amount, refundNonce: rec.onchain.refundNonce, claims };
    const network = call.requirements.network;
    const done = await facilitator.refund(completed, call.requirements);
    const { refunding: _done, ...unmarked } = marked;
    if (!done.ok) {
      // Cleared only when nothing was sent; a sent refund whose outcome is unknown may still land, so its mark lapses.
      if (done.transaction === '')
        await store.put(id, unmarked).catch((err: unknown) => config.fault(`channel ${id} refund mark not cleared (it lapses)`, err));
      return failedOnChain(refuse(call, done.reason, refusalSentence(done.reason, done.message)), done, network, rec.payer);
    }
    const next: ChannelRecord = { ...unmarked, onchain: done.snapshot, syncedAt: config.now(), unclaimedSince: 0, last: null };
    // Everything unspent went back: the channel is closed until the payer funds it again.
    // The money moved: a record that cannot follow (another instance wrote it meanwhile) is refreshed by the claimer's watch.
    const stored = BigInt(done.snapshot.balance) <= BigInt(done.snapshot.totalClaimed) ? store.remove(id, marked) : store.put(id, next);
    await stored.catch((err: unknown) => config.fault(`channel ${id} refund not recorded`, err));
    const channelState = channelStateOf(id, next);
    const body = JSON.stringify({ channelId: id, refunded: done.amount, transaction: done.transaction, channelState });
    const answer = { status: 200, headers: PAID_ANSWER_HEADERS, body };
    const response = { success: true, transaction: done.transaction, network, payer: rec.payer, amount: done.amount, extra: { channelState } };
    return withChannelResponse(answer, response, { headers: {}, extensions: null });
  }

  return async (call: PaidCall, p: ChannelPayload & { type: 'refund' }, id: string): Promise<HttpReply> => {
    // A refund moves money at our gas: nothing happens, and nothing of the channel is told, before the signer is proven.
    const bad = await config.signerProof(call, p, id);
    if (bad) return refuse(call, bad);
    const rec = await store.get(id);
    if (!rec) return refuse(call, CHANNEL_REASONS.missingChannel, `this server holds no channel ${id}`);
    if (rec.quarantined) return refuse(call, CHANNEL_REASONS.channelQuarantined, 'a claim of this channel failed on chain; it takes no more calls');
    if (p.voucher.maxClaimableAmount !== rec.charged) {
      // An old voucher read off the chain proves nothing: no corrective state for it.
      if (isPublished(rec, p.voucher.maxClaimableAmount))
        return refuse(call, CHANNEL_REASONS.belowClaimed, 'the voucher is at or below what was claimed on chain');
      return config.corrective(call, id, rec);
    }
    const remainder = BigInt(rec.onchain.balance) - BigInt(rec.charged);
    if (remainder <= 0n) return refuse(call, CHANNEL_REASONS.refundNoBalance, 'nothing is left to refund');
    if (refundInFlight(rec, config.now())) return refuse(call, CHANNEL_REASONS.channelBusy, 'a refund of this channel is in flight');
    return sendRefund(call, p, id, rec, remainder);
  };
}

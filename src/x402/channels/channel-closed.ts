/**
 * Why a channel takes no voucher now, whatever the voucher: quarantined (a claim of it reverted),
 * its payer's timed withdrawal pending, or a cooperative refund in flight. The refund's mark is
 * written (at a new revision) before the refund is sent on chain, so on every instance sharing the
 * store a voucher either meets the mark or loses its commit to it: none is charged against escrow
 * that is going back to the payer (docs/security.md, "a voucher racing a refund").
 */
import { CHANNEL_REASONS } from './channel-payload.ts';
import type { ChannelRecord } from './channel-store.ts';

/**
 * How long a refund's mark holds the channel, ms: past a refund's send and receipt wait
 * (`--settle-timeout-ms`, 30 s by default). A mark older than this was left by an instance that
 * stopped mid-refund, or by a refund sent whose outcome was not heard: the next voucher reads the
 * chain again (the refund may have moved the escrow) and drops it.
 */
export const REFUND_MARK_MS = 120_000;

/** Whether `rec` carries a refund's mark that still holds at `now`. */
export const refundInFlight = (rec: ChannelRecord, now: number): boolean => rec.refunding !== undefined && now - rec.refunding.at < REFUND_MARK_MS;

/** The refusal of every voucher on `rec` at `now`, or null when it takes vouchers. */
export function closedBy(rec: ChannelRecord, now: number): { readonly reason: string; readonly message: string } | null {
  if (rec.quarantined) return { reason: CHANNEL_REASONS.channelQuarantined, message: 'a claim of this channel failed on chain; it takes no more calls' };
  if (rec.onchain.withdrawRequestedAt !== 0)
    return {
      reason: CHANNEL_REASONS.withdrawalPending,
      message: "the payer's timed withdrawal from this channel is pending; it takes no vouchers until it ends",
    };
  if (refundInFlight(rec, now))
    return { reason: CHANNEL_REASONS.channelBusy, message: 'a refund of this channel is in flight; it takes no vouchers until it ends' };
  return null;
}

/** `rec` without a refund's mark that no longer holds, its mirror then due to be read again; else `rec`. */
export function withoutLapsedMark(rec: ChannelRecord, now: number): ChannelRecord {
  if (rec.refunding === undefined || refundInFlight(rec, now)) return rec;
  const { refunding: _lapsed, ...rest } = rec;
  return { ...rest, syncedAt: 0 };
}

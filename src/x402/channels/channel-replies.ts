/**
 * What a channel payment answers with: the `PAYMENT-RESPONSE` of the scheme's payment response
 * contract (a voucher moves nothing on chain: empty `transaction` and `amount`, the charge and the
 * channel's state in `extra`), the channel snapshot every answer carries, and the corrective 402
 * that hands a payer whose cumulative amount is off our state and last voucher to resync from.
 */
import type { HttpReply } from '../../errors.ts';
import type { ChannelRecord } from './channel-store.ts';
import { type StampedReceipts, withSettleFailure } from '../delivery/paid-delivery.ts';
import type { ChallengeBuilder } from '../delivery/payment-terms.ts';
import type { SettleResponse } from '../types/x402-types.ts';

/** The scheme's `channelState` object: on-chain accounting plus what we have charged. */
export function channelStateOf(channelId: string, record: ChannelRecord) {
  return {
    channelId,
    balance: record.onchain.balance,
    totalClaimed: record.onchain.totalClaimed,
    withdrawRequestedAt: record.onchain.withdrawRequestedAt,
    refundNonce: record.onchain.refundNonce,
    chargedCumulativeAmount: record.charged,
  };
}

/** base64 JSON of a channel payment's SettleResponse. */
export function channelResponseHeader(response: SettleResponse): string {
  return Buffer.from(JSON.stringify(response)).toString('base64');
}

/** A refused on-chain step (deposit, refund): the 402 with the failed settlement's `PAYMENT-RESPONSE`. */
export function failedOnChain(
  refusal: HttpReply,
  failed: { readonly reason: string; readonly transaction: string },
  network: string,
  payer: string,
): HttpReply {
  return withSettleFailure(refusal, { success: false, errorReason: failed.reason, transaction: failed.transaction, network, payer });
}

/** The paid answer with its `PAYMENT-RESPONSE` (and the x402 extension receipt in it) and our receipt's header. */
export function withChannelResponse(answer: HttpReply, response: SettleResponse, receipts: StampedReceipts): HttpReply {
  const settled = receipts.extensions ? { ...response, extensions: receipts.extensions } : response;
  return { ...answer, headers: { ...answer.headers, 'PAYMENT-RESPONSE': channelResponseHeader(settled), ...receipts.headers } };
}

/**
 * The corrective 402: the payer's voucher ceiling is not our charge plus the price. It carries
 * our state and, when we hold one, the last voucher the payer signed, which the payer checks
 * against its own key before adopting our charge.
 */
export function correctiveReply(builder: ChallengeBuilder, resourceUrl: string, reason: string, channelId: string, record: ChannelRecord): HttpReply {
  const extra: Record<string, unknown> = { channelState: channelStateOf(channelId, record) };
  if (record.signature) extra.voucherState = { signedMaxClaimable: record.signedMax, signature: record.signature };
  return builder.replyWithExtra(resourceUrl, reason, 'batch-settlement', extra);
}

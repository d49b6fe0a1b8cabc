/**
 * Who may learn or change anything about a payment channel: only a request proven to come from
 * the channel's own signer. A channel id is public (it is in every claim on chain), so knowing it
 * proves nothing; the proof is that the payload's config hashes to the channel id and its voucher
 * signature is the payer authorizer's (recovered in the pool), or, for a payer that signs as a
 * contract (EIP-1271, a zero authorizer), that the facilitator's check on chain accepts it.
 *
 * A signature proves who sends it only while it is secret. The voucher we claim becomes public
 * the moment the claim is sent (the transaction's calldata carries it), so a voucher at or below
 * the ceiling we published proves nothing: it may come from anyone who reads the chain.
 */
import type { VoucherCheck, VoucherToRecover } from '../../chain/evm/evm-channel-typed-data.ts';
import { sameEvmAddress } from '../../chain/evm/evm-typed-data.ts';
import type { ChannelFacilitator } from './channel-facilitator.ts';
import { CHANNEL_REASONS, type ChannelPayload } from './channel-payload.ts';
import type { ChannelRecord } from './channel-store.ts';
import type { PaidCall } from '../types/paid-call.ts';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export interface SignerProofConfig {
  readonly facilitator: Pick<ChannelFacilitator, 'verify'>;
  /** Recovers a voucher's signer: the pool's task (ECDSA recovery is CPU work). */
  readonly recover: (input: VoucherToRecover, signal: AbortSignal) => Promise<VoucherCheck>;
  readonly chainId: number;
}

/** Null when the payload comes from the channel's signer, else the reason it does not. */
export type SignerProof = (call: PaidCall, p: ChannelPayload, id: string) => Promise<string | null>;

/** Creates the check that a payload's voucher is the channel's signer's, for the channel id it names. */
export function createSignerProof(config: SignerProofConfig): SignerProof {
  return async (call, p, id) => {
    if (sameEvmAddress(ZERO_ADDRESS, p.channelConfig.payerAuthorizer)) {
      const v = await config.facilitator.verify(call.payment, call.requirements);
      return v.ok ? null : v.reason;
    }
    const input = {
      config: p.channelConfig,
      chainId: config.chainId,
      channelId: id,
      maxClaimableAmount: p.voucher.maxClaimableAmount,
      signature: p.voucher.signature,
    };
    const check = await config.recover(input, call.request.signal);
    if (!check.ok) return check.reason === 'channel_id_mismatch' ? CHANNEL_REASONS.channelIdMismatch : CHANNEL_REASONS.voucherSignature;
    return sameEvmAddress(check.signer, p.channelConfig.payerAuthorizer) ? null : CHANNEL_REASONS.voucherSignature;
  };
}

/**
 * The highest voucher ceiling of the channel that may be public: what we sent on chain in a claim,
 * or what the chain shows claimed. Vouchers only rise, and we claim the latest, so every voucher
 * anyone could have read off the chain is at or below it.
 */
export function publishedCeiling(record: ChannelRecord): bigint {
  const claimed = BigInt(record.onchain.totalClaimed);
  const sent = BigInt(record.published ?? '0');
  return sent > claimed ? sent : claimed;
}

/** Whether a voucher of ceiling `max` may have been read off the chain by anyone. */
export const isPublished = (record: ChannelRecord, max: string): boolean => BigInt(max) <= publishedCeiling(record);

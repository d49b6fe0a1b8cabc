/**
 * The on-chain half of our payment channels, run by the official x402 facilitator code for the
 * `batch-settlement` scheme, in process: it verifies and sends deposits (EIP-3009 through the
 * canonical collector), claim batches, the settle sweep and cooperative refunds. Its transactions
 * go out through our relayer, its claim and refund authorizations are signed with our receiver
 * authorizer key. The per-request half (cumulative accounting, voucher signatures, durable state)
 * is ours, in channel-machine.ts. Thrown errors of that code become data here.
 */
import { toFacilitatorEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/facilitator';
import type { EvmChannelChain, OnchainChannel } from '../../chain/evm/evm-channel-chain.ts';
import type { ChannelConfig } from '../../chain/evm/evm-channel-typed-data.ts';
import type { PaymentPayload, PaymentRequirements } from '../types/x402-types.ts';

/** A channel's on-chain accounting as decimal strings (the wire form of `channelState`). */
export interface ChannelSnapshot {
  readonly balance: string;
  readonly totalClaimed: string;
  readonly withdrawRequestedAt: number;
  readonly refundNonce: string;
}

/** One row of a claim batch: the latest voucher of a channel and the total to claim up to. */
export interface ClaimEntry {
  readonly voucher: { readonly channel: ChannelConfig; readonly maxClaimableAmount: string };
  readonly signature: string;
  readonly totalClaimed: string;
}

/** The claim row of a channel's voucher: its ceiling and signature, and the total to claim up to. */
export function claimEntry(channel: ChannelConfig, maxClaimableAmount: string, signature: string, totalClaimed: string): ClaimEntry {
  return { voucher: { channel, maxClaimableAmount }, signature, totalClaimed };
}

export type FacilitatorOutcome<T> =
  | ({ readonly ok: true } & T)
  | { readonly ok: false; readonly reason: string; readonly message: string; readonly transaction: string };

export interface ChannelFacilitator {
  readonly receiverAuthorizer: string;
  readonly signers: readonly string[];
  verify(
    payment: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<FacilitatorOutcome<{ readonly payer: string; readonly snapshot: ChannelSnapshot }>>;
  settleDeposit(
    payment: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<FacilitatorOutcome<{ readonly transaction: string; readonly snapshot: ChannelSnapshot }>>;
  /** `refund` is the completed refund payload (nonce and claim rows added by the server). */
  refund(
    refund: Record<string, unknown>,
    requirements: PaymentRequirements,
  ): Promise<FacilitatorOutcome<{ readonly transaction: string; readonly amount: string; readonly snapshot: ChannelSnapshot }>>;
  claim(claims: readonly ClaimEntry[], requirements: PaymentRequirements): Promise<FacilitatorOutcome<{ readonly transaction: string }>>;
  /** Sweeps everything claimed for our receiver and token to the receiver. */
  sweep(requirements: PaymentRequirements): Promise<FacilitatorOutcome<{ readonly transaction: string; readonly amount: string }>>;
  read(channelId: string): Promise<ChannelSnapshot>;
}

/** The on-chain reads as wire strings. */
export function snapshotOf(state: OnchainChannel): ChannelSnapshot {
  return {
    balance: state.balance.toString(),
    totalClaimed: state.totalClaimed.toString(),
    withdrawRequestedAt: state.withdrawRequestedAt,
    refundNonce: state.refundNonce.toString(),
  };
}

function snapshotFrom(raw: unknown): ChannelSnapshot | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const s = raw as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === 'string' && /^\d+$/.test(v) ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : null);
  const balance = num(s.balance);
  const totalClaimed = num(s.totalClaimed);
  const refundNonce = num(s.refundNonce);
  if (balance === null || totalClaimed === null || refundNonce === null) return null;
  return { balance, totalClaimed, withdrawRequestedAt: Number(s.withdrawRequestedAt ?? 0), refundNonce };
}

/** The facilitator says nothing of a transaction whose receipt failed; the log needs at least its hash. */
const minedFailure = (transaction: string) => (transaction ? `transaction ${transaction} failed on chain (its receipt's status)` : '');
const failed = (reason: string, message: string, transaction = '') => ({ ok: false as const, reason, message, transaction });
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

type Settled = { success: boolean; errorReason?: string; errorMessage?: string; transaction: string; amount?: string; extra?: Record<string, unknown> };

/** Creates the facilitator over the channel chain of `chainId` (transactions time out after `confirmationTimeoutMs`). */
export function createChannelFacilitator(chain: EvmChannelChain, confirmationTimeoutMs: number, chainId: number): ChannelFacilitator {
  const scheme = new BatchSettlementEvmScheme(toFacilitatorEvmSigner(chain.signer, { confirmationTimeoutMs }), chain.authorizer);
  const payloadOf = (payload: Record<string, unknown>, requirements: PaymentRequirements) =>
    ({ x402Version: 2, accepted: requirements, payload }) as unknown as Parameters<typeof scheme.settle>[0];
  const reqs = (r: PaymentRequirements) => r as unknown as Parameters<typeof scheme.settle>[1];

  async function settle(payload: Parameters<typeof scheme.settle>[0], requirements: PaymentRequirements): Promise<Settled | { error: string }> {
    try {
      return (await scheme.settle(payload, reqs(requirements))) as Settled;
    } catch (err) {
      return { error: messageOf(err) };
    }
  }
  const outcome = (r: Settled | { error: string }) =>
    'error' in r
      ? failed('unexpected_settle_error', r.error)
      : !r.success
        ? failed(r.errorReason ?? 'settlement_failed', r.errorMessage || minedFailure(r.transaction), r.transaction)
        : null;

  /**
   * Our authorizer's signature of a claim batch, made natively and handed to the scheme, which
   * then skips its own (viem's JavaScript `signClaimBatch`). Null for a row naming another
   * receiver authorizer or another network than the channels': the scheme refuses those itself,
   * with its own reason, as before.
   */
  async function claimSignature(claims: readonly ClaimEntry[], requirements: PaymentRequirements): Promise<string | null> {
    const ours = chain.authorizer.address.toLowerCase();
    if (requirements.network !== `eip155:${chainId}` || claims.some((c) => c.voucher.channel.receiverAuthorizer.toLowerCase() !== ours)) return null;
    return chain.authorizer.signClaimBatch(claims, chainId);
  }

  return {
    receiverAuthorizer: chain.authorizer.address,
    signers: [chain.signer.address],
    async verify(payment, requirements) {
      try {
        const r = await scheme.verify(payment as unknown as Parameters<typeof scheme.verify>[0], reqs(requirements));
        if (!r.isValid) return failed(r.invalidReason ?? 'invalid_payload', r.invalidMessage ?? '');
        const snapshot = snapshotFrom(r.extra);
        if (!snapshot) return failed('invalid_batch_settlement_evm_rpc_read_failed', 'the facilitator returned no channel state');
        return { ok: true, payer: r.payer ?? '', snapshot };
      } catch (err) {
        return failed('unexpected_verify_error', messageOf(err));
      }
    },
    async settleDeposit(payment, requirements) {
      const r = await settle(payment as unknown as Parameters<typeof scheme.settle>[0], requirements);
      const bad = outcome(r);
      if (bad) return bad;
      const s = r as Settled;
      const snapshot = snapshotFrom(s.extra?.channelState);
      if (!snapshot) return failed('invalid_batch_settlement_evm_rpc_read_failed', 'the deposit landed but its channel state was not returned', s.transaction);
      return { ok: true, transaction: s.transaction, snapshot };
    },
    async refund(refund, requirements) {
      const r = await settle(payloadOf(refund, requirements), requirements);
      const bad = outcome(r);
      if (bad) return bad;
      const s = r as Settled;
      const snapshot = snapshotFrom(s.extra?.channelState);
      if (!snapshot) return failed('invalid_batch_settlement_evm_rpc_read_failed', 'the refund landed but its channel state was not returned', s.transaction);
      return { ok: true, transaction: s.transaction, amount: s.amount ?? '0', snapshot };
    },
    async claim(claims, requirements) {
      const signature = await claimSignature(claims, requirements);
      const r = await settle(payloadOf({ type: 'claim', claims, ...(signature ? { claimAuthorizerSignature: signature } : {}) }, requirements), requirements);
      return outcome(r) ?? { ok: true, transaction: (r as Settled).transaction };
    },
    async sweep(requirements) {
      const r = await settle(payloadOf({ type: 'settle', receiver: requirements.payTo, token: requirements.asset }, requirements), requirements);
      return outcome(r) ?? { ok: true, transaction: (r as Settled).transaction, amount: (r as Settled).amount ?? '0' };
    },
    read: async (channelId) => snapshotOf(await chain.read(channelId)),
  };
}

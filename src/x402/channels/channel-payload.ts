/**
 * The `payload` of an x402 `batch-settlement` payment on EVM, read from untrusted JSON: a
 * `voucher` (the channel exists, a new cumulative ceiling), a `deposit` (a voucher plus a
 * token authorization that funds the channel) or a `refund` (a zero-charge voucher asking for
 * the unspent escrow back). Shape, and whether the config is for our terms; signatures and money
 * are checked later, in the pool and on chain. Reason codes are the scheme's, as the official
 * facilitator spells them.
 */
import type { ChannelConfig } from '../../chain/evm/evm-channel-typed-data.ts';
import { isEvmAddress, sameEvmAddress } from '../../chain/evm/evm-typed-data.ts';
import type { PaymentRequirements } from '../types/x402-types.ts';

/** The scheme's name in `accepts`. */
export const BATCH_SETTLEMENT_SCHEME = 'batch-settlement';

/**
 * x402 reason codes of the batch-settlement scheme that this server gives itself; all are the
 * scheme's but `channelQuarantined` (a claim of the channel reverted on its own) and `payerBusy`
 * (a deposit while the same payer's last one is in flight), ours.
 */
export const CHANNEL_REASONS = {
  payloadType: 'invalid_batch_settlement_evm_payload_type',
  voucherPayload: 'invalid_batch_settlement_evm_voucher_payload',
  depositPayload: 'invalid_batch_settlement_evm_deposit_payload',
  refundPayload: 'invalid_batch_settlement_evm_refund_payload',
  channelIdMismatch: 'invalid_batch_settlement_evm_channel_id_mismatch',
  voucherSignature: 'invalid_batch_settlement_evm_voucher_signature',
  cumulativeMismatch: 'invalid_batch_settlement_evm_cumulative_amount_mismatch',
  exceedsBalance: 'invalid_batch_settlement_evm_cumulative_exceeds_balance',
  belowClaimed: 'invalid_batch_settlement_evm_cumulative_below_claimed',
  channelNotFound: 'invalid_batch_settlement_evm_channel_not_found',
  channelBusy: 'invalid_batch_settlement_evm_channel_busy',
  receiverMismatch: 'invalid_batch_settlement_evm_receiver_mismatch',
  receiverAuthorizerMismatch: 'invalid_batch_settlement_evm_receiver_authorizer_mismatch',
  tokenMismatch: 'invalid_batch_settlement_evm_token_mismatch',
  withdrawDelayMismatch: 'invalid_batch_settlement_evm_withdraw_delay_mismatch',
  missingChannel: 'invalid_batch_settlement_evm_missing_channel',
  refundNoBalance: 'invalid_batch_settlement_evm_refund_no_balance',
  refundAmountInvalid: 'invalid_batch_settlement_evm_refund_amount_invalid',
  withdrawalPending: 'invalid_batch_settlement_evm_withdrawal_pending',
  rpcReadFailed: 'invalid_batch_settlement_evm_rpc_read_failed',
  payerBusy: 'payer_busy',
  channelQuarantined: 'invalid_batch_settlement_evm_channel_quarantined',
} as const;

/** The voucher part every payload type carries. */
export interface SignedVoucher {
  readonly channelId: string;
  /** Decimal string: the payer's cumulative ceiling for the channel. */
  readonly maxClaimableAmount: string;
  readonly signature: string;
}

interface PayloadBase {
  readonly channelConfig: ChannelConfig;
  readonly voucher: SignedVoucher;
}

export type ChannelPayload =
  | (PayloadBase & { readonly type: 'voucher' })
  | (PayloadBase & { readonly type: 'deposit'; readonly depositAmount: string })
  | (PayloadBase & { readonly type: 'refund'; readonly amount: string | null });

export type ParsedChannelPayload =
  | { readonly ok: true; readonly payload: ChannelPayload }
  | { readonly ok: false; readonly reason: string; readonly message: string };

const UINT128_RE = /^(0|[1-9]\d{0,38})$/;
const UINT128_MAX = (1n << 128n) - 1n;
const BYTES32_RE = /^0x[0-9a-fA-F]{64}$/;
const SIGNATURE_RE = /^0x(?:[0-9a-fA-F]{2})+$/;
/** A voucher signature is 65 bytes; an EIP-1271 wallet's may be longer, but not unbounded. */
const MAX_SIGNATURE_HEX_CHARS = 4096;

/** True for a decimal string of a uint128. */
export function isUint128(value: unknown): value is string {
  return typeof value === 'string' && UINT128_RE.test(value) && BigInt(value) <= UINT128_MAX;
}

type Field<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

function readConfig(raw: unknown): Field<ChannelConfig> {
  if (typeof raw !== 'object' || raw === null) return { ok: false, message: 'channelConfig is not an object' };
  const c = raw as Record<string, unknown>;
  for (const key of ['payer', 'payerAuthorizer', 'receiver', 'receiverAuthorizer', 'token'] as const) {
    if (typeof c[key] !== 'string' || !isEvmAddress(c[key] as string)) return { ok: false, message: `channelConfig.${key} is not an address` };
  }
  if (!Number.isSafeInteger(c.withdrawDelay) || (c.withdrawDelay as number) < 0)
    return { ok: false, message: 'channelConfig.withdrawDelay is not a whole number' };
  if (typeof c.salt !== 'string' || !BYTES32_RE.test(c.salt)) return { ok: false, message: 'channelConfig.salt is not 32 bytes of hex' };
  const s = c as Record<string, string>;
  return {
    ok: true,
    value: {
      payer: s.payer!,
      payerAuthorizer: s.payerAuthorizer!,
      receiver: s.receiver!,
      receiverAuthorizer: s.receiverAuthorizer!,
      token: s.token!,
      withdrawDelay: c.withdrawDelay as number,
      salt: s.salt!,
    },
  };
}

function readVoucher(raw: unknown): Field<SignedVoucher> {
  if (typeof raw !== 'object' || raw === null) return { ok: false, message: 'voucher is not an object' };
  const v = raw as Record<string, unknown>;
  if (typeof v.channelId !== 'string' || !BYTES32_RE.test(v.channelId)) return { ok: false, message: 'voucher.channelId is not 32 bytes of hex' };
  if (!isUint128(v.maxClaimableAmount)) return { ok: false, message: 'voucher.maxClaimableAmount is not a uint128 decimal string' };
  if (typeof v.signature !== 'string' || !SIGNATURE_RE.test(v.signature) || v.signature.length > MAX_SIGNATURE_HEX_CHARS)
    return { ok: false, message: 'voucher.signature is not hex' };
  return { ok: true, value: { channelId: v.channelId.toLowerCase(), maxClaimableAmount: v.maxClaimableAmount, signature: v.signature } };
}

function depositAmountOf(raw: unknown): Field<string> {
  if (typeof raw !== 'object' || raw === null) return { ok: false, message: 'deposit is not an object' };
  const d = raw as Record<string, unknown>;
  if (!isUint128(d.amount) || d.amount === '0') return { ok: false, message: 'deposit.amount is not a positive uint128 decimal string' };
  if (typeof d.authorization !== 'object' || d.authorization === null) return { ok: false, message: 'deposit.authorization is missing' };
  return { ok: true, value: d.amount };
}

/** Reads a batch-settlement payload's shape (the deposit's authorization is left to the facilitator). */
export function parseChannelPayload(payload: unknown): ParsedChannelPayload {
  if (typeof payload !== 'object' || payload === null) return { ok: false, reason: CHANNEL_REASONS.payloadType, message: 'payload is not an object' };
  const p = payload as Record<string, unknown>;
  const reasonOfType =
    p.type === 'voucher'
      ? CHANNEL_REASONS.voucherPayload
      : p.type === 'deposit'
        ? CHANNEL_REASONS.depositPayload
        : p.type === 'refund'
          ? CHANNEL_REASONS.refundPayload
          : null;
  if (reasonOfType === null) return { ok: false, reason: CHANNEL_REASONS.payloadType, message: 'payload.type is not voucher, deposit or refund' };
  const config = readConfig(p.channelConfig);
  if (!config.ok) return { ok: false, reason: reasonOfType, message: config.message };
  const voucher = readVoucher(p.voucher);
  if (!voucher.ok) return { ok: false, reason: reasonOfType, message: voucher.message };
  const base = { channelConfig: config.value, voucher: voucher.value };
  if (p.type === 'voucher') return { ok: true, payload: { ...base, type: 'voucher' } };
  if (p.type === 'deposit') {
    const amount = depositAmountOf(p.deposit);
    if (!amount.ok) return { ok: false, reason: reasonOfType, message: amount.message };
    return { ok: true, payload: { ...base, type: 'deposit', depositAmount: amount.value } };
  }
  if (p.amount !== undefined && (!isUint128(p.amount) || p.amount === '0'))
    return { ok: false, reason: CHANNEL_REASONS.refundAmountInvalid, message: 'amount is not a positive uint128 decimal string' };
  return { ok: true, payload: { ...base, type: 'refund', amount: (p.amount as string | undefined) ?? null } };
}

const same = (a: string, b: unknown) => typeof b === 'string' && sameEvmAddress(a, b);

/** Why the channel's config is not for our terms, or null. */
export function termsMismatch(p: ChannelPayload, r: PaymentRequirements): string | null {
  const c = p.channelConfig;
  if (!same(c.receiver, r.payTo)) return CHANNEL_REASONS.receiverMismatch;
  if (!same(c.receiverAuthorizer, r.extra.receiverAuthorizer)) return CHANNEL_REASONS.receiverAuthorizerMismatch;
  if (!same(c.token, r.asset)) return CHANNEL_REASONS.tokenMismatch;
  if (c.withdrawDelay !== Number(r.extra.withdrawDelay)) return CHANNEL_REASONS.withdrawDelayMismatch;
  return null;
}

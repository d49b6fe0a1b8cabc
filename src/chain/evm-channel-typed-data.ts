/**
 * The x402 `batch-settlement` channel's EIP-712 structures: a channel's id (the typed-data hash of
 * its immutable config) and the signer of a cumulative voucher. Pure CPU work on plain data, so
 * voucher recovery runs in a worker. The addresses and type strings are the scheme's public
 * constants (the canonical CREATE2 deployments on every EVM chain); a unit test holds them equal to
 * the official SDK's.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { getAddress, hashTypedData, hexToBytes, keccak256 } from 'viem/utils';
import { isCanonicalEcdsaSignature } from './evm-typed-data.ts';

/** The channel contract (`x402BatchSettlement`), the same address on every chain. */
export const BATCH_SETTLEMENT_ADDRESS = '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003';
/** The collector that pulls an EIP-3009 deposit into a channel. */
export const ERC3009_DEPOSIT_COLLECTOR_ADDRESS = '0x4020806089470a89826cB9fB1f4059150b550004';
/** The scheme's bounds on a channel's withdrawal delay, seconds (15 minutes to 30 days). */
export const MIN_WITHDRAW_DELAY_SECONDS = 900;
export const MAX_WITHDRAW_DELAY_SECONDS = 2_592_000;

/** A channel's immutable config; its EIP-712 hash is the channel id. Addresses as 0x hex. */
export interface ChannelConfig {
  readonly payer: string;
  /** The EOA that signs vouchers, or the zero address when the payer itself (EIP-1271) does. */
  readonly payerAuthorizer: string;
  readonly receiver: string;
  readonly receiverAuthorizer: string;
  readonly token: string;
  readonly withdrawDelay: number;
  /** 0x + 64 hex. */
  readonly salt: string;
}

const CHANNEL_CONFIG_TYPES = {
  ChannelConfig: [
    { name: 'payer', type: 'address' },
    { name: 'payerAuthorizer', type: 'address' },
    { name: 'receiver', type: 'address' },
    { name: 'receiverAuthorizer', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'withdrawDelay', type: 'uint40' },
    { name: 'salt', type: 'bytes32' },
  ],
} as const;

const VOUCHER_TYPES = {
  Voucher: [
    { name: 'channelId', type: 'bytes32' },
    { name: 'maxClaimableAmount', type: 'uint128' },
  ],
} as const;

/** The channel contract's EIP-712 domain on `chainId`. */
export function batchSettlementDomain(chainId: number) {
  return { name: 'x402 Batch Settlement', version: '1', chainId, verifyingContract: getAddress(BATCH_SETTLEMENT_ADDRESS) } as const;
}

/** The channel id of `config` on `chainId`, lowercase 0x hex (throws on a malformed address or salt). */
export function channelIdOf(config: ChannelConfig, chainId: number): string {
  return hashTypedData({
    domain: batchSettlementDomain(chainId),
    types: CHANNEL_CONFIG_TYPES,
    primaryType: 'ChannelConfig',
    message: {
      payer: getAddress(config.payer),
      payerAuthorizer: getAddress(config.payerAuthorizer),
      receiver: getAddress(config.receiver),
      receiverAuthorizer: getAddress(config.receiverAuthorizer),
      token: getAddress(config.token),
      withdrawDelay: config.withdrawDelay,
      salt: config.salt as `0x${string}`,
    },
  }).toLowerCase();
}

/** A voucher to check: the channel (its config, to recompute the id) and the signed ceiling. */
export interface VoucherToRecover {
  readonly config: ChannelConfig;
  readonly chainId: number;
  /** The id the payer claims for `config`; it must be the config's hash. */
  readonly channelId: string;
  /** Decimal string of a uint128. */
  readonly maxClaimableAmount: string;
  readonly signature: string;
}

/** Why a voucher does not hold, or who signed it. */
export type VoucherCheck =
  | { readonly ok: true; readonly signer: string }
  | { readonly ok: false; readonly reason: 'channel_id_mismatch' | 'voucher_signature' };

const UINT128_MAX = (1n << 128n) - 1n;

/**
 * The address whose key made `signature` (65 bytes r, s, v; v 27/28 or 0/1) over `hash`. The
 * recovery is @noble/curves 2 called directly: viem's recoverTypedDataAddress (noble 1.9 behind
 * hex and bigint conversions) spent over twice the CPU, and this runs once per paid voucher.
 */
export function signerOf(hash: `0x${string}`, signature: string): string {
  const bytes = hexToBytes(signature as `0x${string}`);
  const v = bytes[64]!;
  // noble's recovered format: the recovery bit first, then r and s.
  const recovered = new Uint8Array(65);
  recovered[0] = v >= 27 ? v - 27 : v;
  recovered.set(bytes.subarray(0, 64), 1);
  const key = secp256k1.recoverPublicKey(recovered, hexToBytes(hash), { prehash: false });
  const uncompressed = secp256k1.Point.fromBytes(key).toBytes(false);
  return getAddress(`0x${keccak256(uncompressed.subarray(1)).slice(26)}`);
}

/**
 * Recomputes the channel id and recovers the voucher's signer (EIP-712 over the channel
 * contract's domain). A non-canonical signature (high s, wrong length) is refused as the
 * contract's ECDSA check refuses it.
 */
export async function recoverVoucherSigner(input: VoucherToRecover): Promise<VoucherCheck> {
  let id: string;
  try {
    id = channelIdOf(input.config, input.chainId);
  } catch {
    return { ok: false, reason: 'channel_id_mismatch' };
  }
  if (id !== input.channelId.toLowerCase()) return { ok: false, reason: 'channel_id_mismatch' };
  const amount = BigInt(input.maxClaimableAmount);
  if (amount > UINT128_MAX || !isCanonicalEcdsaSignature(input.signature)) return { ok: false, reason: 'voucher_signature' };
  try {
    const hash = hashTypedData({
      domain: batchSettlementDomain(input.chainId),
      types: VOUCHER_TYPES,
      primaryType: 'Voucher',
      message: { channelId: id as `0x${string}`, maxClaimableAmount: amount },
    });
    return { ok: true, signer: signerOf(hash, input.signature) };
  } catch {
    return { ok: false, reason: 'voucher_signature' };
  }
}

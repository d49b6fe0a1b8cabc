/**
 * The x402 `batch-settlement` channel's EIP-712 structures: a channel's id (the typed-data hash of
 * its immutable config) and the signer of a cumulative voucher. Pure CPU work on plain data, all of
 * it native (Keccak through keccak-256.ts, libsecp256k1 through secp256k1-recover.ts), so it runs
 * in a worker or, while the pool idles, on the event loop. The addresses and type strings are the scheme's public
 * constants (the canonical CREATE2 deployments on every EVM chain); a unit test holds them equal to
 * the official SDK's.
 */
import { getAddress } from 'viem/utils';
import { type Eip712Domain, hexWord, typedDataDigest, typeHashOf, uintWord } from './eip712-static.ts';
import { keccak256 } from './keccak-256.ts';
import { recoverSignerAddress, signDigest } from './secp256k1-recover.ts';
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

/**
 * The two structs are static (addresses, integers, bytes32), so each hashes by hand over the
 * native Keccak (eip712-static.ts); a unit test holds the results equal to the SDK's.
 */
const CHANNEL_CONFIG_TYPEHASH = typeHashOf(
  'ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)',
);
const VOUCHER_TYPEHASH = typeHashOf('Voucher(bytes32 channelId,uint128 maxClaimableAmount)');
const UINT40_MAX = 2 ** 40 - 1;
const UINT128_MAX = (1n << 128n) - 1n;

const domainOf = (chainId: number): Eip712Domain => ({ name: 'x402 Batch Settlement', version: '1', chainId, verifyingContract: BATCH_SETTLEMENT_ADDRESS });

/** The channel contract's EIP-712 domain on `chainId`. */
export function batchSettlementDomain(chainId: number) {
  return { name: 'x402 Batch Settlement', version: '1', chainId, verifyingContract: getAddress(BATCH_SETTLEMENT_ADDRESS) } as const;
}

/** The channel id of `config` on `chainId`, lowercase 0x hex (throws on a malformed address, salt or delay). */
export function channelIdOf(config: ChannelConfig, chainId: number): string {
  if (!Number.isSafeInteger(config.withdrawDelay) || config.withdrawDelay < 0 || config.withdrawDelay > UINT40_MAX)
    throw new Error('withdrawDelay is not a uint40');
  const digest = typedDataDigest(domainOf(chainId), CHANNEL_CONFIG_TYPEHASH, [
    hexWord(config.payer, 20),
    hexWord(config.payerAuthorizer, 20),
    hexWord(config.receiver, 20),
    hexWord(config.receiverAuthorizer, 20),
    hexWord(config.token, 20),
    uintWord(BigInt(config.withdrawDelay)),
    hexWord(config.salt, 32),
  ]);
  return `0x${digest.toString('hex')}`;
}

/** The EIP-712 digest a voucher's signature is over. */
export function voucherDigest(channelId: string, maxClaimableAmount: bigint, chainId: number): Buffer {
  return typedDataDigest(domainOf(chainId), VOUCHER_TYPEHASH, [hexWord(channelId, 32), uintWord(maxClaimableAmount)]);
}

/** One row of a claim batch as our receiver authorizer signs it (the facilitator's claim row, amounts as decimal strings). */
export interface ClaimToSign {
  readonly voucher: { readonly channel: ChannelConfig; readonly maxClaimableAmount: string };
  readonly totalClaimed: string;
}

const CLAIM_ENTRY_TYPE = 'ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)';
const CLAIM_ENTRY_TYPEHASH = typeHashOf(CLAIM_ENTRY_TYPE);
/** EIP-712 encodes a referenced struct's type after the primary one. */
const CLAIM_BATCH_TYPEHASH = typeHashOf(`ClaimBatch(ClaimEntry[] claims)${CLAIM_ENTRY_TYPE}`);

/** A uint128 word of a decimal string (throws above uint128, as the ABI encoder does). */
function uint128Word(decimal: string): Buffer {
  const n = BigInt(decimal);
  if (n > UINT128_MAX) throw new Error('not a uint128');
  return uintWord(n);
}

/**
 * The EIP-712 digest of a `ClaimBatch` (the receiver authorizer's signature over a batch claim):
 * each row's channel id computed from its config, the rows hashed as an array of static structs,
 * by hand over the native Keccak like the voucher (the SDK's `signClaimBatch` ran viem's generic
 * encoder and JavaScript Keccak, on the event loop, for every row of every claim).
 */
export function claimBatchDigest(claims: readonly ClaimToSign[], chainId: number): Buffer {
  const rows = claims.map((c) =>
    keccak256(
      CLAIM_ENTRY_TYPEHASH,
      hexWord(channelIdOf(c.voucher.channel, chainId), 32),
      uint128Word(c.voucher.maxClaimableAmount),
      uint128Word(c.totalClaimed),
    ),
  );
  return typedDataDigest(domainOf(chainId), CLAIM_BATCH_TYPEHASH, [keccak256(...rows)]);
}

/** The receiver authorizer's signature of a claim batch, 0x hex: the bytes the SDK's `signClaimBatch` makes, in native code. */
export async function signClaimBatchNative(claims: readonly ClaimToSign[], chainId: number, secretKey: Uint8Array): Promise<`0x${string}`> {
  const signature = await signDigest(claimBatchDigest(claims, chainId), secretKey);
  return `0x${Buffer.from(signature).toString('hex')}`;
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

/**
 * Whether the voucher signature's last byte is 27 or 28: the channel contract's ECDSA check (as
 * OpenZeppelin's and `ecrecover` itself) takes no other, while recovery off chain (libsecp256k1,
 * viem) takes the bare recovery id 0 or 1 as well. A voucher with 0 or 1 recovers its payer here
 * and can never be claimed: its answer would be given for nothing.
 */
const claimableV = (signature: string): boolean => {
  const v = signature.slice(130, 132).toLowerCase();
  return v === '1b' || v === '1c';
};

/**
 * Whether a voucher's signature has a form the contract can claim: a payer that signs as a contract
 * (EIP-1271, zero authorizer) is its wallet's to judge; an ECDSA authorizer's is 65 bytes, low s,
 * v 27 or 28. For a voucher whose signer is not recovered here: a deposit's, which the facilitator
 * checks, and its check (viem's recovery) takes v 0 and 1 as well.
 */
export const claimableVoucherForm = (payerAuthorizer: string, signature: string): boolean =>
  /^0x0{40}$/i.test(payerAuthorizer) || (isCanonicalEcdsaSignature(signature) && claimableV(signature));

/**
 * Recomputes the channel id and recovers the voucher's signer (EIP-712 over the channel
 * contract's domain). A signature the contract's ECDSA check refuses (high s, wrong length, a
 * recovery byte other than 27 or 28) is refused as it refuses it.
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
  if (amount > UINT128_MAX || !isCanonicalEcdsaSignature(input.signature) || !claimableV(input.signature)) return { ok: false, reason: 'voucher_signature' };
  const signer = await recoverSignerAddress(voucherDigest(id, amount, input.chainId), Buffer.from(input.signature.slice(2), 'hex'));
  return signer === null ? { ok: false, reason: 'voucher_signature' } : { ok: true, signer };
}

/**
 * The payer's signature of a cumulative voucher (the EIP-712 `Voucher` under the channel
 * contract's domain), 0x hex: the bytes the official client's `signVoucher` makes, in native code.
 */
export async function signVoucherNative(channelId: string, maxClaimableAmount: bigint, chainId: number, secretKey: Uint8Array): Promise<`0x${string}`> {
  if (maxClaimableAmount < 0n || maxClaimableAmount > UINT128_MAX) throw new Error('maxClaimableAmount is not a uint128');
  const signature = await signDigest(voucherDigest(channelId, maxClaimableAmount, chainId), secretKey);
  return `0x${Buffer.from(signature).toString('hex')}`;
}

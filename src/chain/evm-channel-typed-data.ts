/**
 * The x402 `batch-settlement` channel's EIP-712 structures: a channel's id (the typed-data hash of
 * its immutable config) and the signer of a cumulative voucher. Pure CPU work on plain data, so
 * voucher recovery runs in a worker (libsecp256k1 through secp256k1-recover.ts). The addresses and type strings are the scheme's public
 * constants (the canonical CREATE2 deployments on every EVM chain); a unit test holds them equal to
 * the official SDK's.
 */
import { getAddress, keccak256 } from 'viem/utils';
import { recoverSignerAddress } from './secp256k1-recover.ts';
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
 * The EIP-712 encoding of the two structs, by hand: both are static (addresses, integers,
 * bytes32), so a struct hash is one keccak over 32-byte words, and the domain separator is kept
 * per chain. viem's generic typed-data encoder cost a millisecond a voucher here; a unit test holds
 * the results equal to the SDK's.
 */
const keccak = (...parts: Uint8Array[]): Buffer => Buffer.from(keccak256(Buffer.concat(parts), 'bytes'));
const text = (s: string): Buffer => Buffer.from(s, 'utf8');
const CHANNEL_CONFIG_TYPEHASH = keccak(
  text('ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)'),
);
const VOUCHER_TYPEHASH = keccak(text('Voucher(bytes32 channelId,uint128 maxClaimableAmount)'));
const DOMAIN_TYPEHASH = keccak(text('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'));
const UINT40_MAX = 2 ** 40 - 1;

/** One 32-byte ABI word of an unsigned integer. */
function word(n: bigint): Buffer {
  return Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
}

/** One 32-byte word of an address or bytes32 given as 0x hex (20 bytes are left-padded). */
function hexWord(hex: string, bytes: 20 | 32): Buffer {
  const body = hex.slice(2);
  if (body.length !== bytes * 2 || !/^[0-9a-fA-F]+$/.test(body)) throw new Error(`not ${bytes} bytes of hex: ${hex.slice(0, 80)}`);
  return Buffer.from(body.padStart(64, '0'), 'hex');
}

const separators = new Map<number, Buffer>();
function domainSeparator(chainId: number): Buffer {
  let sep = separators.get(chainId);
  if (!sep) {
    sep = keccak(DOMAIN_TYPEHASH, keccak(text('x402 Batch Settlement')), keccak(text('1')), word(BigInt(chainId)), hexWord(BATCH_SETTLEMENT_ADDRESS, 20));
    separators.set(chainId, sep);
  }
  return sep;
}

const digestOf = (chainId: number, structHash: Buffer): Buffer => keccak(Buffer.from([0x19, 0x01]), domainSeparator(chainId), structHash);

/** The channel contract's EIP-712 domain on `chainId`. */
export function batchSettlementDomain(chainId: number) {
  return { name: 'x402 Batch Settlement', version: '1', chainId, verifyingContract: getAddress(BATCH_SETTLEMENT_ADDRESS) } as const;
}

/** The channel id of `config` on `chainId`, lowercase 0x hex (throws on a malformed address, salt or delay). */
export function channelIdOf(config: ChannelConfig, chainId: number): string {
  if (!Number.isSafeInteger(config.withdrawDelay) || config.withdrawDelay < 0 || config.withdrawDelay > UINT40_MAX)
    throw new Error('withdrawDelay is not a uint40');
  const struct = keccak(
    CHANNEL_CONFIG_TYPEHASH,
    hexWord(config.payer, 20),
    hexWord(config.payerAuthorizer, 20),
    hexWord(config.receiver, 20),
    hexWord(config.receiverAuthorizer, 20),
    hexWord(config.token, 20),
    word(BigInt(config.withdrawDelay)),
    hexWord(config.salt, 32),
  );
  return `0x${digestOf(chainId, struct).toString('hex')}`;
}

/** The EIP-712 digest a voucher's signature is over. */
export function voucherDigest(channelId: string, maxClaimableAmount: bigint, chainId: number): Buffer {
  return digestOf(chainId, keccak(VOUCHER_TYPEHASH, hexWord(channelId, 32), word(maxClaimableAmount)));
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
  const signer = await recoverSignerAddress(voucherDigest(id, amount, input.chainId), Buffer.from(input.signature.slice(2), 'hex'));
  return signer === null ? { ok: false, reason: 'voucher_signature' } : { ok: true, signer };
}

/**
 * EIP-712 hashing of static structs by hand (addresses, integers, bytes32: every member one 32-byte
 * word), over the native Keccak. The paid path's two structs, a channel voucher and an EIP-3009
 * `TransferWithAuthorization`, are static; viem's generic encoder cost about a millisecond each in
 * JavaScript. Unit tests hold each digest equal to viem's `hashTypedData` and the official SDK's.
 */
import { keccak256 } from './keccak-256.ts';

/** The EIP-712 domain of a contract: the four fields both of our structs are signed under. */
export interface Eip712Domain {
  readonly name: string;
  readonly version: string;
  readonly chainId: number;
  /** 0x + 40 hex, any case. */
  readonly verifyingContract: string;
}

const DOMAIN_TYPEHASH = typeHashOf('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)');
const MAX_UINT256 = (1n << 256n) - 1n;
const EIP712_PREFIX = Buffer.from([0x19, 0x01]);
/** Distinct domains kept; the service signs under a handful (its tokens, the channel contract). */
const MAX_KEPT_DOMAINS = 64;

/** The type hash of an EIP-712 type string (its encodeType). */
export function typeHashOf(encodeType: string): Buffer {
  return keccak256(Buffer.from(encodeType, 'utf8'));
}

/** One 32-byte ABI word of an unsigned integer (throws above uint256 or below zero). */
export function uintWord(n: bigint): Buffer {
  if (n < 0n || n > MAX_UINT256) throw new Error('not a uint256');
  return Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
}

/** One 32-byte word of an address or bytes32 given as 0x hex (20 bytes are left-padded); throws on anything else. */
export function hexWord(hex: string, bytes: 20 | 32): Buffer {
  const body = hex.slice(2);
  if (!hex.startsWith('0x') || body.length !== bytes * 2 || !/^[0-9a-fA-F]+$/.test(body)) throw new Error(`not ${bytes} bytes of hex: ${hex.slice(0, 80)}`);
  return Buffer.from(body.padStart(64, '0'), 'hex');
}

const separators = new Map<string, Buffer>();

/** The domain separator (hashStruct of the domain), kept per domain. */
export function domainSeparatorOf(domain: Eip712Domain): Buffer {
  const key = `${domain.chainId}\n${domain.verifyingContract.toLowerCase()}\n${domain.version}\n${domain.name}`;
  let separator = separators.get(key);
  if (!separator) {
    separator = keccak256(
      DOMAIN_TYPEHASH,
      keccak256(Buffer.from(domain.name, 'utf8')),
      keccak256(Buffer.from(domain.version, 'utf8')),
      uintWord(BigInt(domain.chainId)),
      hexWord(domain.verifyingContract, 20),
    );
    if (separators.size >= MAX_KEPT_DOMAINS) separators.clear();
    separators.set(key, separator);
  }
  return separator;
}

/** The digest a signature is over: keccak(0x1901 || domainSeparator || hashStruct), the struct given as its type hash and words. */
export function typedDataDigest(domain: Eip712Domain, typeHash: Buffer, words: readonly Buffer[]): Buffer {
  return keccak256(EIP712_PREFIX, domainSeparatorOf(domain), keccak256(typeHash, ...words));
}

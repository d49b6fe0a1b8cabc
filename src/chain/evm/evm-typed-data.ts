/**
 * EIP-712 / EIP-3009 signature recovery for `TransferWithAuthorization`: pure CPU work on plain
 * data (no RPC), so it can run in a worker. Signatures are held to what the token contract
 * accepts: 65 bytes, v in {27, 28} (or the 0/1 parity form), s in the lower half of the curve.
 */
import { getAddress, isAddress } from 'viem/utils';
import { hexWord, typedDataDigest, typeHashOf, uintWord } from './eip712-static.ts';
import { recoverSignerAddress } from './secp256k1-recover.ts';

/** secp256k1 group order / 2: a larger s is the malleable twin of a valid signature. */
const HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const SIGNATURE_RE = /^0x[0-9a-fA-F]{130}$/;

/** EIP-3009's struct, as x402 clients sign it. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export interface TransferAuthorizationToRecover {
  readonly domain: { readonly name: string; readonly version: string; readonly chainId: number; readonly verifyingContract: string };
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly validAfter: bigint;
  readonly validBefore: bigint;
  /** 0x + 64 hex. */
  readonly nonce: string;
  /** 0x + 130 hex (r || s || v). */
  readonly signature: string;
}

/** True for a 0x-prefixed 20-byte hex address (any case; a mixed-case one must checksum). */
export function isEvmAddress(value: string): boolean {
  return isAddress(value, { strict: false });
}

/** Case-insensitive address equality for valid addresses. */
export function sameEvmAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** The checksummed form of an address. */
export function checksumEvmAddress(address: string): string {
  return getAddress(address);
}

/** Whether the signature is a well-formed, non-malleable 65-byte ECDSA signature. */
export function isCanonicalEcdsaSignature(signature: string): boolean {
  if (!SIGNATURE_RE.test(signature)) return false;
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130, 132), 16);
  return s > 0n && s <= HALF_CURVE_ORDER && (v === 27 || v === 28 || v === 0 || v === 1);
}

const TRANSFER_WITH_AUTHORIZATION_TYPEHASH = typeHashOf(
  'TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)',
);

/** The EIP-712 digest an authorization's signature is over (throws on a malformed address, integer or nonce). */
export function transferAuthorizationDigest(input: Omit<TransferAuthorizationToRecover, 'signature'>): Buffer {
  return typedDataDigest(input.domain, TRANSFER_WITH_AUTHORIZATION_TYPEHASH, [
    hexWord(input.from, 20),
    hexWord(input.to, 20),
    uintWord(input.value),
    uintWord(input.validAfter),
    uintWord(input.validBefore),
    hexWord(input.nonce, 32),
  ]);
}

/**
 * The address (lowercase) that signed the authorization, or null when no address can be recovered:
 * the struct hashed by hand (eip712-static.ts) and the key recovered in libsecp256k1, about a
 * tenth of a millisecond where viem's `recoverTypedDataAddress` took several in JavaScript.
 */
export async function recoverTransferAuthorizer(input: TransferAuthorizationToRecover): Promise<string | null> {
  if (!isCanonicalEcdsaSignature(input.signature)) return null;
  let digest: Buffer;
  try {
    digest = transferAuthorizationDigest(input);
  } catch {
    return null;
  }
  return recoverSignerAddress(digest, Buffer.from(input.signature.slice(2), 'hex'));
}

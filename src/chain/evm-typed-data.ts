/**
 * EIP-712 / EIP-3009 signature recovery for `TransferWithAuthorization`: pure CPU work on plain
 * data (no RPC), so it can run in a worker. Signatures are held to what the token contract
 * accepts: 65 bytes, v in {27, 28} (or the 0/1 parity form), s in the lower half of the curve.
 */
import { getAddress, isAddress, recoverTypedDataAddress } from 'viem/utils';

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

/** The address that signed the authorization, or null when no address can be recovered. */
export async function recoverTransferAuthorizer(input: TransferAuthorizationToRecover): Promise<string | null> {
  if (!isCanonicalEcdsaSignature(input.signature)) return null;
  try {
    return await recoverTypedDataAddress({
      domain: { ...input.domain, verifyingContract: getAddress(input.domain.verifyingContract) },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: getAddress(input.from),
        to: getAddress(input.to),
        value: input.value,
        validAfter: input.validAfter,
        validBefore: input.validBefore,
        nonce: input.nonce as `0x${string}`,
      },
      signature: input.signature as `0x${string}`,
    });
  } catch {
    return null;
  }
}

/**
 * ECDSA on secp256k1 in native code: public-key recovery for the hot voucher check, and signing
 * for the client library's vouchers, both in libsecp256k1 through the `secp256k1` package's
 * native binding (a prebuilt addon), measured at 25-40x faster than pure JS (`npm run bench --
 * voucher-recovery`). Where the addon cannot load (another platform without a prebuild), viem's
 * pure-JS code answers the same, only slower.
 */
import { createRequire } from 'node:module';
import { recoverAddress } from 'viem';
import { sign } from 'viem/accounts';
import { keccak256 } from './keccak-256.ts';

interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
  /** A 64-byte r||s signature (low s, RFC 6979 nonce) and its recovery id; throws on an invalid key. */
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
}

function loadNative(): NativeSecp256k1 | null {
  try {
    // The binding itself, not the package's entry: that falls back to a JS curve silently.
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return null;
  }
}

const native = loadNative();

/** Whether recovery runs in libsecp256k1 (true) or in JavaScript. */
export const NATIVE_SECP256K1 = native !== null;

/**
 * The address (lowercase 0x hex) that signed the 32-byte `digest`, from a 65-byte r||s||v
 * signature (v 27/28 or 0/1); null when no key recovers from it.
 */
export async function recoverSignerAddress(digest: Uint8Array, signature: Uint8Array): Promise<string | null> {
  if (digest.length !== 32 || signature.length !== 65) return null;
  const v = signature[64]!;
  const recid = v >= 27 ? v - 27 : v;
  if (recid !== 0 && recid !== 1) return null;
  try {
    if (native) {
      const pub = native.ecdsaRecover(signature.subarray(0, 64), recid, digest, false);
      return `0x${keccak256(pub.subarray(1)).toString('hex', 12)}`;
    }
    return (await recoverAddress({ hash: digest, signature })).toLowerCase();
  } catch {
    return null;
  }
}

/**
 * A 65-byte r||s||v signature (v 27/28) of the 32-byte `digest` by `secretKey` (32 bytes): RFC 6979
 * nonces and low s in both paths, so the native and the JavaScript signature are the same bytes
 * (and the same as viem's `signTypedData` over the same digest).
 */
export async function signDigest(digest: Uint8Array, secretKey: Uint8Array): Promise<Uint8Array> {
  const signature = signDigestNative(digest, secretKey);
  if (signature) return signature;
  const hex = await sign({ hash: `0x${Buffer.from(digest).toString('hex')}`, privateKey: `0x${Buffer.from(secretKey).toString('hex')}`, to: 'hex' });
  return Buffer.from(hex.slice(2), 'hex');
}

/**
 * `signDigest` in libsecp256k1 without leaving the call (no promise, for a hot path that signs
 * per call), into a 65-byte Buffer; null where the addon did not load (then `signDigest` answers).
 */
export function signDigestNative(digest: Uint8Array, secretKey: Uint8Array): Buffer | null {
  if (digest.length !== 32 || secretKey.length !== 32) throw new Error('signDigest takes a 32-byte digest and a 32-byte key');
  if (!native) return null;
  const out = native.ecdsaSign(digest, secretKey);
  const signature = Buffer.allocUnsafe(65);
  signature.set(out.signature);
  signature[64] = 27 + out.recid;
  return signature;
}

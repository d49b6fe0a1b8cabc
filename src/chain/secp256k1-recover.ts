/**
 * ECDSA public-key recovery on secp256k1 for the hot voucher check: libsecp256k1 through the
 * `secp256k1` package's native binding (a prebuilt addon), measured at 25-40x faster than the
 * pure-JS recovery (`npm run bench -- voucher-recovery`). Where the addon cannot load (another
 * platform without a prebuild), viem's pure-JS recovery answers the same, only slower.
 */
import { createRequire } from 'node:module';
import { recoverAddress } from 'viem';
import { keccak256 } from './keccak-256.ts';

interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
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

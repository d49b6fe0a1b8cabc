/**
 * Ed25519 through node:crypto (OpenSSL): the pure functions the worker pool runs. Measured per core
 * (docs/contract.md#engineering-decisions): verify ~7.7k/s, sign ~22k/s. The pool's worker entry
 * calls them, and the event loop signs too while the pool idles (workers/pool-inline.ts): one
 * signature is tens of µs, less than a pool hop.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** PKCS#8 DER prefix of an ed25519 private key; the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const PUBLIC_KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;

/** One signature to check: `signature` by `publicKey` over `message`. */
export interface Ed25519Check {
  readonly publicKey: Uint8Array;
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
}

/** Most public key objects kept per thread: a payer signs every payment with the same key. */
const KEPT_PUBLIC_KEYS = 1024;
/** Key objects by the key's base64url text; emptied whole when full (hostile keys only cost their own import). */
const publicKeys = new Map<string, KeyObject>();

/**
 * The key object of a raw 32-byte public key, imported as a JWK and kept: OpenSSL 3 takes the same
 * raw key either way, but its DER decoder cost about as much as the verification itself (0.37 ms
 * against 0.04 ms for the JWK on this machine; test/unit/chain/ed25519.test.ts holds the two
 * imports to the same verdicts, edge keys included).
 */
function publicKeyObject(raw: Uint8Array): KeyObject {
  const x = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64url');
  let key = publicKeys.get(x);
  if (key === undefined) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    if (publicKeys.size >= KEPT_PUBLIC_KEYS) publicKeys.clear();
    publicKeys.set(x, key);
  }
  return key;
}

/** Checks each signature; a malformed key or signature is `false`, never a throw. */
export function verifyEd25519Batch(checks: readonly Ed25519Check[]): boolean[] {
  return checks.map((c) => {
    if (c.publicKey.length !== PUBLIC_KEY_BYTES || c.signature.length !== SIGNATURE_BYTES) return false;
    try {
      return verify(null, c.message, publicKeyObject(c.publicKey), c.signature);
    } catch {
      // OpenSSL refuses some non-canonical keys outright; that is an invalid signature.
      return false;
    }
  });
}

/**
 * Most checks a "few" check may hold: a Solana payment's signers other than our fee payer (the
 * exact rules allow three signatures). About 0.13 ms each with the key object made per check (less since the JWK import), so
 * such a check is as short as the tasks the event loop runs while the pool idles.
 */
export const ED25519_FEW_CHECKS = 2;

/** `verifyEd25519Batch` of at most ED25519_FEW_CHECKS checks; more is a caller's bug, refused. */
export function verifyEd25519Few(checks: readonly Ed25519Check[]): boolean[] {
  if (checks.length > ED25519_FEW_CHECKS) throw new Error(`at most ${ED25519_FEW_CHECKS} checks`);
  return verifyEd25519Batch(checks);
}

/** A signing function bound to one 32-byte seed (the key object is built once). */
export function createEd25519Signer(seed: Uint8Array): (message: Uint8Array) => Uint8Array {
  if (seed.length !== 32) throw new Error('ed25519 seed must be 32 bytes');
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return (message) => new Uint8Array(sign(null, message, key));
}

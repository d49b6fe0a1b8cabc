/**
 * The primitives a client needs to check the service's proofs by itself: SHA-256, ed25519
 * verification and base58/base64 decoding, all pure JavaScript (audited @noble and @scure
 * libraries), so the same checks run in the storefront page and in the CLI, and neither trusts
 * the service's own `/trust/verify`. The only module of src/receipt-checks that imports them.
 */
import { base58, base64 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** SHA-256 of bytes or of the UTF-8 of a string, as lower-case hex. */
export function sha256Hex(input: string | Uint8Array): string {
  return bytesToHex(sha256(typeof input === 'string' ? utf8ToBytes(input) : input));
}

/** SHA-256 over the concatenation of two hex digests' bytes, as hex (one Merkle step). */
export function sha256PairHex(leftHex: string, rightHex: string): string | null {
  const left = hexBytes(leftHex);
  const right = hexBytes(rightHex);
  if (!left || !right) return null;
  const joined = new Uint8Array(left.length + right.length);
  joined.set(left);
  joined.set(right, left.length);
  return bytesToHex(sha256(joined));
}

/** Bytes of an even-length hex string, or null when it is not hex. */
export function hexBytes(hex: string): Uint8Array | null {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  return hexToBytes(hex);
}

/** Bytes of base58 text, or null when it is not base58. */
export function base58Bytes(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || text.length === 0) return null;
  try {
    return base58.decode(text);
  } catch {
    return null;
  }
}

/** Text of standard or URL-safe base64 (padding optional), or null when it is not base64 of UTF-8. */
export function base64Text(text: string): string | null {
  const std = text.replace(/-/g, '+').replace(/_/g, '/').replace(/\s+/g, '');
  const padded = std + '='.repeat((4 - (std.length % 4)) % 4);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(base64.decode(padded));
  } catch {
    return null;
  }
}

/**
 * True when `signatureBase58` is a valid ed25519 signature of the UTF-8 of `message` by the
 * base58 public key; false for any malformed input (the inputs are adversarial).
 */
export function verifyEd25519Text(message: string, signatureBase58: unknown, publicKeyBase58: unknown): boolean {
  const signature = base58Bytes(signatureBase58);
  const publicKey = base58Bytes(publicKeyBase58);
  if (signature?.length !== 64 || publicKey?.length !== 32) return false;
  try {
    // Strict RFC 8032 rules, as the service verifies with node:crypto (ZIP-215 would accept more).
    return ed25519.verify(signature, utf8ToBytes(message), publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/** Bytes of standard base64 (RFC 4648 §4, padded, canonical), or null for anything else. */
export function base64Bytes(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  try {
    const bytes = base64.decode(text);
    // Canonical only: a second spelling of the same bytes is refused rather than read.
    return base64.encode(bytes) === text ? bytes : null;
  } catch {
    return null;
  }
}

/** Standard padded base64 of bytes. */
export function bytesBase64(bytes: Uint8Array): string {
  return base64.encode(bytes);
}

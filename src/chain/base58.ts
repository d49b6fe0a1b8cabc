/**
 * Base58 (Bitcoin alphabet) for Solana addresses and signatures. The only module that imports
 * kit's codecs for this purpose, so the rest of the service deals in plain strings and bytes.
 */
import { getBase58Codec } from '@solana/kit';

const CODEC = getBase58Codec();
const BASE58_ALPHABET_RE = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** Decodes base58 text to bytes, or null when the text is not base58. */
export function decodeBase58(text: string): Uint8Array | null {
  if (text.length === 0 || !BASE58_ALPHABET_RE.test(text)) return null;
  try {
    return Uint8Array.from(CODEC.encode(text));
  } catch {
    return null;
  }
}

/** Encodes bytes as base58 text. */
export function encodeBase58(bytes: Uint8Array): string {
  return CODEC.decode(bytes);
}

/** True when `text` is base58 that decodes to exactly `byteLength` bytes (32 for an address). */
export function isBase58OfLength(text: string, byteLength: number): boolean {
  // A 32-byte value is at most 44 base58 characters and a 64-byte value at most 88: cheap pre-check.
  if (text.length > Math.ceil(byteLength * 1.3666) + 1) return false;
  return decodeBase58(text)?.length === byteLength;
}

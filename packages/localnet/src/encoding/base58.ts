/**
 * Base58 (Bitcoin alphabet) for the localnet: addresses, signatures, blockhashes and instruction
 * data. The only importer of `bs58`, whose byte-wise long division is fast enough for the Geyser
 * hot path (kit's codec goes through BigInt and capped the stream near 10k transactions/s).
 */
import bs58 from 'bs58';

/** Bytes of an address. */
const ADDRESS_BYTES = 32;

/** Encodes bytes as base58 text. */
export function encodeBase58(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}

/** Decodes base58 text, or null when the text is empty or not base58 (client input). */
export function decodeBase58(text: string): Uint8Array | null {
  if (text.length === 0) return null;
  return bs58.decodeUnsafe(text) ?? null;
}

/**
 * Decodes base58 text that the chain core produced from bytes; invalid text there is a bug, so it
 * throws instead of answering null.
 */
export function base58Bytes(text: string): Uint8Array {
  const bytes = bs58.decodeUnsafe(text);
  if (bytes === undefined) throw new TypeError(`not base58: ${JSON.stringify(text)}`);
  return bytes;
}

/** The base58 address of 32 raw bytes. */
export function bytesToAddress(bytes: Uint8Array): string {
  if (bytes.length !== ADDRESS_BYTES) throw new RangeError(`not 32 address bytes: ${bytes.length}`);
  return bs58.encode(bytes);
}

/** Raw 32 bytes of a base58 address; throws on anything that is not exactly 32 bytes. */
export function addressToBytes(address: string): Uint8Array {
  const bytes = decodeBase58(address);
  if (bytes === null || bytes.length !== ADDRESS_BYTES) throw new RangeError(`not a 32-byte address: ${address}`);
  return bytes;
}

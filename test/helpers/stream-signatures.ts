/**
 * Signatures and the confirmed transaction updates carrying them, as the Geyser stream's parser
 * hands them to the signature watch (src/chain/geyser/signature-watch.ts).
 */
import { randomBytes } from 'node:crypto';
import { encodeBase58 } from '../../src/chain/solana/base58.ts';
import type { ParsedTransaction } from '../../src/chain/geyser/geyser-tx-parse.ts';

/** A fresh 64-byte signature, as bytes and as its base58 id. */
export function freshSignature(): { bytes: Uint8Array; id: string } {
  const bytes = new Uint8Array(randomBytes(64));
  return { bytes, id: encodeBase58(bytes) };
}

/** A confirmed transaction update of `signature` (a copy of its bytes, as a new update would carry). */
export function landed(signature: Uint8Array, failed = false): ParsedTransaction {
  return { cuPrice: 0, tipLamports: 0, writable: [], failed, signature: Uint8Array.from(signature) };
}

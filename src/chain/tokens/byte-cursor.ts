/**
 * Little-endian byte reader for Solana account layouts (SPL Token `Pack` structs,
 * Token-2022 `Pod` extensions, Borsh strings). The reader throws `RangeError` on overrun; callers
 * that must never throw (the account parsers) catch it at their boundary and turn it into an
 * error result.
 */
import { decodeBase58, encodeBase58 } from '../solana/base58.ts';

/** Size of an ed25519 public key / Solana address in bytes. */
export const PUBKEY_BYTES = 32;

/** Base58 text of 32 raw bytes. */
export function bytesToAddress(bytes: Uint8Array): string {
  return encodeBase58(bytes);
}

/** Raw 32 bytes of a base58 address; throws on anything that is not exactly 32 bytes of base58. */
export function addressToBytes(address: string): Uint8Array {
  const bytes = decodeBase58(address);
  if (bytes?.length !== PUBKEY_BYTES) throw new RangeError(`not a 32-byte address: ${address}`);
  return bytes;
}

function isAllZero(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0) return false;
  return true;
}

/** Sequential reader over a byte slice. */
export interface ByteReader {
  readonly offset: number;
  readonly remaining: number;
  u8(): number;
  u16(): number;
  i16(): number;
  u32(): number;
  u64(): bigint;
  i64(): bigint;
  f64(): number;
  bool(): boolean;
  bytes(length: number): Uint8Array;
  pubkey(): string;
  /** Token-2022 `OptionalNonZeroPubkey`: 32 zero bytes mean None. */
  optionalPubkey(): string | null;
  /** SPL Token `COption<Pubkey>`: u32 tag (0 None, 1 Some) then 32 bytes, always 36 bytes. */
  cOptionPubkey(): string | null;
  /** SPL Token `COption<u64>`: u32 tag then 8 bytes, always 12 bytes. */
  cOptionU64(): bigint | null;
  /** Borsh `String`: u32 length then UTF-8. */
  string(): string;
  /** Base64 of the next `length` bytes (how Agave prints ElGamal/AE ciphertexts and keys). */
  base64(length: number): string;
  /** Like `base64` but all-zero bytes mean None (`OptionalNonZeroElGamalPubkey`). */
  optionalBase64(length: number): string | null;
}

/** Creates a reader over `data` (no copy). */
export function createByteReader(data: Uint8Array): ByteReader {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let pos = 0;
  const take = (n: number): number => {
    if (n < 0 || pos + n > data.length) {
      throw new RangeError(`read of ${n} bytes at offset ${pos} overruns ${data.length} bytes`);
    }
    const at = pos;
    pos += n;
    return at;
  };
  const reader: ByteReader = {
    get offset() {
      return pos;
    },
    get remaining() {
      return data.length - pos;
    },
    u8: () => view.getUint8(take(1)),
    u16: () => view.getUint16(take(2), true),
    i16: () => view.getInt16(take(2), true),
    u32: () => view.getUint32(take(4), true),
    u64: () => view.getBigUint64(take(8), true),
    i64: () => view.getBigInt64(take(8), true),
    f64: () => view.getFloat64(take(8), true),
    bool: () => view.getUint8(take(1)) !== 0,
    bytes: (n) => {
      const at = take(n);
      return data.slice(at, at + n);
    },
    pubkey: () => bytesToAddress(reader.bytes(PUBKEY_BYTES)),
    optionalPubkey: () => {
      const raw = reader.bytes(PUBKEY_BYTES);
      return isAllZero(raw) ? null : bytesToAddress(raw);
    },
    cOptionPubkey: () => {
      const tag = reader.u32();
      const key = reader.bytes(PUBKEY_BYTES);
      if (tag > 1) throw new RangeError(`invalid COption tag ${tag}`);
      return tag === 1 ? bytesToAddress(key) : null;
    },
    cOptionU64: () => {
      const tag = reader.u32();
      const value = reader.u64();
      if (tag > 1) throw new RangeError(`invalid COption tag ${tag}`);
      return tag === 1 ? value : null;
    },
    string: () => new TextDecoder('utf-8', { fatal: true }).decode(reader.bytes(reader.u32())),
    base64: (n) => Buffer.from(reader.bytes(n)).toString('base64'),
    optionalBase64: (n) => {
      const raw = reader.bytes(n);
      return isAllZero(raw) ? null : Buffer.from(raw).toString('base64');
    },
  };
  return reader;
}

/**
 * Little-endian byte reader and writer for Solana account layouts (SPL Token `Pack` structs,
 * Token-2022 `Pod` extensions, Borsh strings). The reader throws `RangeError` on overrun; callers
 * that must never throw (the account parsers) catch it at their boundary and turn it into an
 * error result.
 */
import { decodeBase58, encodeBase58 } from './base58.ts';

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
    get offset() { return pos; },
    get remaining() { return data.length - pos; },
    u8: () => view.getUint8(take(1)),
    u16: () => view.getUint16(take(2), true),
    i16: () => view.getInt16(take(2), true),
    u32: () => view.getUint32(take(4), true),
    u64: () => view.getBigUint64(take(8), true),
    i64: () => view.getBigInt64(take(8), true),
    f64: () => view.getFloat64(take(8), true),
    bool: () => view.getUint8(take(1)) !== 0,
    bytes: (n) => { const at = take(n); return data.slice(at, at + n); },
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

/** Append-only little-endian writer. */
export interface ByteWriter {
  readonly length: number;
  u8(v: number): ByteWriter;
  u16(v: number): ByteWriter;
  i16(v: number): ByteWriter;
  u32(v: number): ByteWriter;
  u64(v: bigint): ByteWriter;
  i64(v: bigint): ByteWriter;
  f64(v: number): ByteWriter;
  bool(v: boolean): ByteWriter;
  bytes(v: Uint8Array): ByteWriter;
  zeros(n: number): ByteWriter;
  pubkey(v: string): ByteWriter;
  optionalPubkey(v: string | null): ByteWriter;
  cOptionPubkey(v: string | null): ByteWriter;
  cOptionU64(v: bigint | null): ByteWriter;
  string(v: string): ByteWriter;
  /** Writes decoded base64 padded/truncated to exactly `length` bytes; null writes zeros. */
  base64(v: string | null, length: number): ByteWriter;
  toBytes(): Uint8Array;
}

/** Creates an empty writer. */
export function createByteWriter(): ByteWriter {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const fixed = (n: number, fill: (v: DataView) => void): ByteWriter => {
    const chunk = new Uint8Array(n);
    fill(new DataView(chunk.buffer));
    return writer.bytes(chunk);
  };
  const writer: ByteWriter = {
    get length() { return length; },
    u8: (v) => fixed(1, (d) => d.setUint8(0, v)),
    u16: (v) => fixed(2, (d) => d.setUint16(0, v, true)),
    i16: (v) => fixed(2, (d) => d.setInt16(0, v, true)),
    u32: (v) => fixed(4, (d) => d.setUint32(0, v, true)),
    u64: (v) => fixed(8, (d) => d.setBigUint64(0, v, true)),
    i64: (v) => fixed(8, (d) => d.setBigInt64(0, v, true)),
    f64: (v) => fixed(8, (d) => d.setFloat64(0, v, true)),
    bool: (v) => writer.u8(v ? 1 : 0),
    bytes: (v) => { chunks.push(v); length += v.length; return writer; },
    zeros: (n) => writer.bytes(new Uint8Array(n)),
    pubkey: (v) => writer.bytes(addressToBytes(v)),
    optionalPubkey: (v) => (v === null ? writer.zeros(PUBKEY_BYTES) : writer.pubkey(v)),
    cOptionPubkey: (v) => (v === null ? writer.u32(0).zeros(PUBKEY_BYTES) : writer.u32(1).pubkey(v)),
    cOptionU64: (v) => (v === null ? writer.u32(0).u64(0n) : writer.u32(1).u64(v)),
    string: (v) => { const utf8 = new TextEncoder().encode(v); return writer.u32(utf8.length).bytes(utf8); },
    base64: (v, n) => {
      const out = new Uint8Array(n);
      if (v !== null) out.set(Buffer.from(v, 'base64').subarray(0, n));
      return writer.bytes(out);
    },
    toBytes: () => {
      const out = new Uint8Array(length);
      let at = 0;
      for (const c of chunks) { out.set(c, at); at += c.length; }
      return out;
    },
  };
  return writer;
}

/**
 * The commit journal's layout on disk (commit-journal.ts writes it, journal-recovery.ts reads it).
 * The file is preallocated (zero-filled once) and reused: a checkpoint does not cut it, it writes
 * a header naming the sequence number of the first record that counts, and records are written
 * over the old ones from `DATA_START`. Overwriting blocks already in the file changes no size, so
 * the filesystem has no metadata to commit with each `O_DSYNC` write (about 40% less time per
 * write on this machine's ext4 than an append; docs/payments.md).
 *
 * Because old bytes stay behind the last record, a record must prove itself: each carries its
 * sequence number and a CRC-32 of everything after its prefix, so a torn record (its end landing
 * on zeros or on an older record's bytes) and an older record (a smaller sequence number) are both
 * told apart from a record of this generation.
 *
 * - Header: two slots of `HEADER_SLOT_BYTES` at 0 and at `HEADER_SLOT_BYTES`, written in turn,
 *   each `CRC {"journal":3,"n":N,"from":SEQ}\n` and zeros; the readable slot with the larger N
 *   counts. A checkpoint writes the other slot, so a write torn there leaves the earlier one,
 *   whose records were all laid down in their synced files already: replaying them is harmless.
 * - Record: `CRC {"s":SEQ,"b":FIRST,"f":[[file,offset,length],...]}\n` + the writes' bytes + `\n`.
 *   CRC: 8 lowercase hex digits of the CRC-32 of the bytes after `CRC ` up to the last newline.
 *   `b`: the sequence number of its batch's first record (one write of the journal), absent on
 *   that first record itself (a lone commit pays nothing for it). A power loss during a batch's
 *   write may keep any of its pages and lose others, so a whole record may follow a lost one of
 *   its own batch (never acknowledged); a whole record of a later batch after a lost one means an
 *   acknowledged record was lost (journal-recovery.ts).
 */
import { crc32 } from 'node:zlib';

/** Bytes of one header slot (one disk sector: a slot's write lands whole or not at all on common devices). */
export const HEADER_SLOT_BYTES = 512;
/** Where the first record starts: after the two header slots. */
export const DATA_START = 2 * HEADER_SLOT_BYTES;
/** The format's number in the header (the earlier forms had no header). */
const FORMAT = 3;
/** `CRC ` before a header or a record. */
const PREFIX_BYTES = 9;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const NEWLINE_BYTES = Buffer.from('\n');

/** A readable header: its checkpoint count and the first sequence number that counts. */
export interface JournalHeader {
  readonly n: number;
  readonly from: number;
}

/** One write of a record: the file's name (relative to the journal's directory), its offset, its bytes' range in the buffer read. */
export type RecordFrame = readonly [name: string, offset: number, length: number];

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');
const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

/** The CRC written in the prefix at `at`, or null when those bytes are not `xxxxxxxx `. */
function prefixCrc(buf: Buffer, at: number): number | null {
  if (at + PREFIX_BYTES > buf.length || buf[at + 8] !== SPACE) return null;
  for (let i = at; i < at + 8; i++) {
    const c = buf[i]!;
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return null;
  }
  return Number.parseInt(buf.toString('latin1', at, at + 8), 16);
}

/** Header slot `n % 2`'s bytes: the slot's line and zeros to its end. */
export function headerSlot(header: JournalHeader): { readonly position: number; readonly bytes: Buffer } {
  const line = Buffer.from(`${JSON.stringify({ journal: FORMAT, n: header.n, from: header.from })}\n`);
  const bytes = Buffer.alloc(HEADER_SLOT_BYTES);
  bytes.write(`${hex8(crc32(line))} `, 0, 'latin1');
  line.copy(bytes, PREFIX_BYTES);
  return { position: (header.n % 2) * HEADER_SLOT_BYTES, bytes };
}

function readSlot(buf: Buffer, at: number): JournalHeader | null {
  const crc = prefixCrc(buf, at);
  const nl = crc === null ? -1 : buf.indexOf(NEWLINE, at + PREFIX_BYTES);
  if (nl < 0 || nl >= at + HEADER_SLOT_BYTES || crc32(buf.subarray(at + PREFIX_BYTES, nl + 1)) !== crc) return null;
  try {
    const h = JSON.parse(buf.toString('utf8', at + PREFIX_BYTES, nl)) as { journal?: unknown; n?: unknown; from?: unknown };
    return h.journal === FORMAT && isCount(h.n) && isCount(h.from) ? { n: h.n, from: h.from } : null;
  } catch {
    return null;
  }
}

/** The header that counts (the readable slot with the larger count), or null when neither slot is readable. */
export function readHeader(buf: Buffer): JournalHeader | null {
  const [a, b] = [readSlot(buf, 0), readSlot(buf, HEADER_SLOT_BYTES)];
  if (a === null || b === null) return a ?? b;
  return a.n >= b.n ? a : b;
}

/** A record's bytes: its prefixed header line, the writes' bytes, the closing newline. */
export function recordBytes(seq: number, frames: readonly RecordFrame[], body: readonly Buffer[], batch = seq): Buffer[] {
  const head = Buffer.from(`${JSON.stringify(batch === seq ? { s: seq, f: frames } : { s: seq, b: batch, f: frames })}\n`);
  let crc = crc32(head);
  for (const b of body) crc = crc32(b, crc);
  crc = crc32(NEWLINE_BYTES, crc);
  return [Buffer.from(`${hex8(crc)} `, 'latin1'), head, ...body, NEWLINE_BYTES];
}

/** A readable record at `at`: its sequence number, its batch's first, its frames (lengths over `body`, which starts there) and the byte after it. */
export interface ReadRecord {
  readonly seq: number;
  readonly batch: number;
  readonly frames: readonly RecordFrame[];
  readonly body: number;
  readonly end: number;
}

function parseRecordHeader(text: string): { seq: number; batch: number; frames: RecordFrame[] } | null {
  try {
    const h = JSON.parse(text) as { s?: unknown; b?: unknown; f?: unknown };
    const batch = h.b ?? h.s;
    if (!isCount(h.s) || !isCount(batch) || batch > h.s || !Array.isArray(h.f)) return null;
    for (const w of h.f) if (!Array.isArray(w) || w.length !== 3 || typeof w[0] !== 'string' || !isCount(w[1]) || !isCount(w[2])) return null;
    return { seq: h.s, batch, frames: h.f as RecordFrame[] };
  } catch {
    return null;
  }
}

/**
 * The record at `at`, or null when none whole is there: no prefix, a header that does not parse,
 * a body that runs past the buffer or does not end in a newline, or a CRC that does not match
 * (torn: part of it never landed, and zeros or older bytes are where it should be).
 */
export function readRecordAt(buf: Buffer, at: number): ReadRecord | null {
  const crc = prefixCrc(buf, at);
  if (crc === null) return null;
  const nl = buf.indexOf(NEWLINE, at + PREFIX_BYTES);
  if (nl < 0) return null;
  const header = parseRecordHeader(buf.toString('utf8', at + PREFIX_BYTES, nl));
  if (header === null) return null;
  const end = nl + 1 + header.frames.reduce((n, f) => n + f[2], 0);
  if (end >= buf.length || buf[end] !== NEWLINE || crc32(buf.subarray(at + PREFIX_BYTES, end + 1)) !== crc) return null;
  return { seq: header.seq, batch: header.batch, frames: header.frames, body: nl + 1, end: end + 1 };
}

/**
 * Whether the journal's bytes are of the earlier, headerless forms (their first record's header
 * line starts the file) rather than this layout, zeros, or nothing: neither header slot begins
 * with a prefix and something is written.
 */
export const isHeaderless = (buf: Buffer): boolean =>
  buf[0] === 0x7b || (prefixCrc(buf, 0) === null && prefixCrc(buf, HEADER_SLOT_BYTES) === null && buf.some((b) => b !== 0));

/**
 * Start-up half of the commit journal: before any store reads its files, every write the journal
 * holds is put back where it belongs. The journal holds exactly the writes made since the last
 * checkpoint (which synced every file and started a new generation of records), each with its
 * file and byte offset, so a file is cut to where its first journaled write began (it was on disk
 * there) and the writes are laid down again in order: whatever the crash left of them (nothing, a
 * part, bytes out of order after a power loss) is replaced by what was acknowledged. Then the
 * files are synced and a new generation begins (journal-layout.ts: the header names the first
 * sequence number that counts; the file keeps its preallocated size).
 *
 * Records are read from the start while each is whole (its CRC matches) and carries the next
 * sequence number; the first that does not ends the journal: zeros, an older generation's bytes,
 * or a torn record (a commit never acknowledged). If a whole record of a later batch lies anywhere
 * after that point, records were lost in the middle: the journal is corrupt and the start stops;
 * whole records of the torn record's own batch (a power loss during its one write) are not laid
 * down, and the next generation is numbered past them. A journal of the earlier, headerless forms (one JSON
 * line per commit holding the texts; framed records without sequence or CRC) is read by their
 * rules, so a journal a crash left behind an upgrade is laid down too.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ensureFileSync } from './atomic-replace.ts';
import { makeDirSync, truncateDurablySync } from './file-sync.ts';
import { DATA_START, isHeaderless, type JournalHeader, readHeader, readRecordAt } from './journal-layout.ts';

/** One write as the journal records it: the file (relative to the journal's directory), its byte offset, its text. */
export type JournalEntry = readonly [name: string, offset: number, text: string];

/** What the recovery put back. */
export interface JournalRecoveryReport {
  /** Commits found complete in the journal. */
  readonly commits: number;
  /** Files written again, by name, with the bytes laid down. */
  readonly files: Readonly<Record<string, number>>;
  /** Bytes of a torn last record cut off the journal (a commit never acknowledged). */
  readonly tornBytes: number;
}

/** What the journal goes on with after recovery: the header to write (the next generation) and whether the file was in an earlier form. */
export interface JournalRecovery {
  readonly report: JournalRecoveryReport;
  readonly next: JournalHeader;
  /** The journal held the earlier, headerless form (or nothing): it is emptied before the new layout is written. */
  readonly legacy: boolean;
}

const NEWLINE = 0x0a;
const isOffset = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

/** A record's header line: the writes themselves (`w`, the earlier whole-line form) or the frames of its body (`f`); null when it is neither. */
function parseHeader(line: string): { readonly whole: JournalEntry[] } | { readonly frames: Array<[string, number, number]> } | null {
  try {
    const parsed = JSON.parse(line) as { w?: unknown; f?: unknown };
    const list = parsed?.w ?? parsed?.f;
    if (!Array.isArray(list) || (parsed.w !== undefined) === (parsed.f !== undefined)) return null;
    const third = parsed.w !== undefined ? (x: unknown) => typeof x === 'string' : isOffset;
    for (const w of list) if (!Array.isArray(w) || w.length !== 3 || typeof w[0] !== 'string' || !isOffset(w[1]) || !third(w[2])) return null;
    return parsed.w !== undefined ? { whole: list as JournalEntry[] } : { frames: list as Array<[string, number, number]> };
  } catch {
    return null;
  }
}

/**
 * The commit whose record starts at byte `at` and the byte after it; null when none can be read
 * there (torn, or corrupt). A record is a header line, then (framed) its body, each write's bytes
 * one after another as the header's lengths say, and a newline.
 */
function readRecord(buf: Buffer, at: number): { entries: JournalEntry[]; end: number } | null {
  const nl = buf.indexOf(NEWLINE, at);
  if (nl < 0) return null;
  const header = parseHeader(buf.toString('utf8', at, nl));
  if (header === null) return null;
  if ('whole' in header) return { entries: header.whole, end: nl + 1 };
  let pos = nl + 1;
  const end = pos + header.frames.reduce((n, [, , length]) => n + length, 0);
  if (end >= buf.length || buf[end] !== NEWLINE) return null;
  const entries: JournalEntry[] = header.frames.map(([name, offset, length]) => {
    pos += length;
    return [name, offset, buf.toString('utf8', pos - length, pos)];
  });
  return { entries, end: end + 1 };
}

/**
 * The journal's complete commits, in order, and the bytes after the last good record (a torn
 * tail). What cannot be read is a torn tail only when no readable record starts at any later line.
 * The texts are the stores' own JSON records, never a bare `{"w": …}` or `{"f": …}` object, so no
 * line inside a torn record's body reads as a record.
 */
function readLegacyCommits(buf: Buffer, path: string): { commits: JournalEntry[][]; tornBytes: number } {
  const commits: JournalEntry[][] = [];
  let at = 0;
  for (let record = readRecord(buf, 0); record !== null; record = readRecord(buf, at)) {
    commits.push(record.entries);
    at = record.end;
  }
  for (let nl = buf.indexOf(NEWLINE, at); nl >= 0 && nl + 1 < buf.length; nl = buf.indexOf(NEWLINE, nl + 1))
    if (readRecord(buf, nl + 1) !== null) {
      const line = buf.subarray(0, at).filter((b) => b === NEWLINE).length + 1;
      throw new Error(`commit journal ${path} corrupt at line ${line}: readable commits follow an unreadable one; refusing to start`);
    }
  return { commits, tornBytes: buf.length - at };
}

/** The whole records of this generation, in order (journal-layout.ts), and the bytes of a torn record at their end. */
function readV3Commits(buf: Buffer, path: string): { commits: JournalEntry[][]; tornBytes: number; next: JournalHeader } {
  const header = readHeader(buf);
  if (header === null) {
    if (buf.some((b) => b !== 0)) throw new Error(`commit journal ${path} has no readable header; refusing to start`);
    return { commits: [], tornBytes: 0, next: { n: 0, from: 1 } };
  }
  const commits: JournalEntry[][] = [];
  let [at, expected] = [DATA_START, header.from];
  for (let r = readRecordAt(buf, at); r !== null && r.seq === expected; r = readRecordAt(buf, at)) {
    let pos = r.body;
    const entries: JournalEntry[] = [];
    for (const [name, offset, length] of r.frames) {
      entries.push([name, offset, buf.toString('utf8', pos, pos + length)]);
      pos += length;
    }
    commits.push(entries);
    [at, expected] = [r.end, expected + 1];
  }
  const tail = tornBatchTail(buf, at, expected);
  if (tail === null)
    throw new Error(`commit journal ${path} corrupt after record ${expected - 1}: a whole record follows an unreadable one; refusing to start`);
  const zero = buf.indexOf(0, at);
  return { commits, tornBytes: torn(buf, at, expected, zero < 0 ? buf.length : zero), next: { n: header.n + 1, from: Math.max(expected, tail + 1) } };
}

/**
 * What follows the last record read (at `at`, `expected` the number it lacks): the largest number
 * of a whole record of the same batch as the lost one (0 when none), or null when a whole record
 * of a later batch is there. Batches are written one after another, each once the one before it
 * is on the device, so a record of a later batch means the lost record was acknowledged: records
 * were lost in between, the journal is corrupt. A whole record of the lost one's own batch (its
 * batch began at or before the lost number) is what a power loss in that batch's one write leaves
 * (any of its pages may have landed): never acknowledged, not laid down, and the next generation
 * numbers past it, so it can never be read as one of that generation's records.
 */
function tornBatchTail(buf: Buffer, at: number, expected: number): number | null {
  let tail = 0;
  const look = (r: ReturnType<typeof readRecordAt>): boolean => {
    if (r === null || r.seq < expected) return true;
    if (r.batch > expected) return false;
    tail = Math.max(tail, r.seq);
    return true;
  };
  if (!look(readRecordAt(buf, at))) return null;
  for (let nl = buf.indexOf(NEWLINE, at); nl >= 0 && nl + 1 < buf.length; nl = buf.indexOf(NEWLINE, nl + 1)) if (!look(readRecordAt(buf, nl + 1))) return null;
  return tail;
}

/** Bytes of a torn record at `at`: from there to the first zero, when what is there starts as a record of this generation would. */
function torn(buf: Buffer, at: number, expected: number, zero: number): number {
  const head = buf.toString('latin1', at, Math.min(zero, at + 64));
  return /^[0-9a-f]{8} \{"s":(\d+),/.exec(head)?.[1] === String(expected) ? zero - at : 0;
}

/** Lays `writes` (one file's, in order) down again from the first one's offset, and syncs the file. */
function rewrite(path: string, writes: readonly JournalEntry[]): number {
  makeDirSync(dirname(path));
  ensureFileSync(path);
  const fd = openSync(path, 'r+');
  try {
    const from = writes[0]![1];
    // The first journaled write began at the file's length as of the last checkpoint, which synced it.
    if (fstatSync(fd).size < from) throw new Error(`${path} is shorter than the commit journal's first write to it (byte ${from}); refusing to start`);
    let end = from;
    for (const [, offset, text] of writes) {
      if (offset !== end) throw new Error(`commit journal's writes to ${path} are not contiguous at byte ${offset}; refusing to start`);
      const buf = Buffer.from(text);
      let done = 0;
      while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done, offset + done);
      end += buf.length;
    }
    truncateDurablySync(fd, end);
    return end - from;
  } finally {
    closeSync(fd);
  }
}

/** The commits the journal at `path` holds (those a start lays down), what follows them, and its form. */
export function readJournalSync(path: string): { commits: JournalEntry[][]; tornBytes: number; next: JournalHeader; legacy: boolean } {
  const buf = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
  if (isHeaderless(buf)) return { ...readLegacyCommits(buf, path), next: { n: 0, from: 1 }, legacy: true };
  return { ...readV3Commits(buf, path), legacy: false };
}

/** Puts back every write the journal at `path` holds, into the files under `dir`; the journal itself is left for the caller to start anew (`next`). */
export function recoverJournalSync(dir: string, path: string): JournalRecovery {
  const { commits, tornBytes, next, legacy } = readJournalSync(path);
  const byFile = new Map<string, JournalEntry[]>();
  for (const commit of commits)
    for (const entry of commit) {
      if (entry[0].split('/').includes('..')) throw new Error(`commit journal ${path} names a file outside its directory; refusing to start`);
      const list = byFile.get(entry[0]) ?? [];
      list.push(entry);
      byFile.set(entry[0], list);
    }
  const files: Record<string, number> = {};
  for (const [name, writes] of byFile) files[name] = rewrite(resolve(dir, name), writes);
  if (legacy) {
    const fd = openSync(path, 'r+');
    try {
      truncateDurablySync(fd, 0);
    } finally {
      closeSync(fd);
    }
  }
  return { report: { commits: commits.length, files, tornBytes }, next, legacy };
}

/**
 * The ledger's write-ahead log file: replay on open (streamed in chunks, torn tail cut) and the
 * group committer that makes appends durable (one write + one fdatasync per batch).
 *
 * Torn tail rule: a crash can leave the last write partly on disk (an unterminated line, or
 * garbage/NUL bytes where the data never landed). Such bytes were never acknowledged, because an
 * append resolves only after its write and fdatasync. So the tail from the first line that is not
 * JSON to the end of the file is cut, provided NO later line parses; a bad line followed by a
 * good one, or a JSON line that is not the expected entry, is corruption and refuses to open.
 */
import { readSync } from 'node:fs';
import { dataSync, writeAll } from '../durable/file-sync.ts';
import { createGroupCommit } from '../durable/group-commit.ts';
import { ServiceError } from '../errors.ts';

const REPLAY_CHUNK_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

/** What replay cut off the end of the WAL, if anything. */
export interface TornTail {
  /** Byte offset the file was truncated to. */
  readonly offset: number;
  readonly bytes: number;
  /** 1-based line number of the first dropped line. */
  readonly line: number;
  readonly reason: string;
}

/** A WAL line as replay hands it over. */
export interface WalLine {
  readonly text: string;
  /** 0-based line number = entry index. */
  readonly lineIndex: number;
  readonly offset: number;
  /** Byte length of the line including its newline. */
  readonly bytes: number;
}

/** Verdict of the caller on one replayed line. */
export type LineVerdict = { readonly ok: true } | { readonly ok: false; readonly parsable: boolean; readonly reason: string };

function corrupt(line: number, offset: number, reason: string): ServiceError {
  return new ServiceError('internal_error', `ledger WAL corrupt at line ${line} (byte offset ${offset}): ${reason}; refusing to start`, { line, offset });
}

/**
 * Streams the WAL at `fd` (size `fileSize`) through `check`, which verifies and absorbs each
 * complete line in order. Returns the byte length of the verified prefix and the torn tail.
 */
export function replayWal(fd: number, fileSize: number, check: (line: WalLine) => LineVerdict): { end: number; torn: TornTail | null } {
  const chunk = Buffer.allocUnsafe(REPLAY_CHUNK_BYTES);
  let carry: Buffer = Buffer.alloc(0);
  let pos = 0;
  let lineIndex = 0;
  let good = 0;
  let firstBad: { line: number; offset: number; reason: string } | null = null;
  const take = (buf: Buffer, start: number, end: number, offset: number): void => {
    const text = buf.toString('utf8', start, end);
    if (firstBad) {
      // After a bad line only unparsable garbage may follow; anything readable means corruption.
      if (isJson(text)) throw corrupt(firstBad.line, firstBad.offset, `${firstBad.reason}, and readable entries follow it`);
    } else {
      const verdict = check({ text, lineIndex, offset, bytes: end - start + 1 });
      if (verdict.ok) good = offset + (end - start) + 1;
      else if (verdict.parsable) throw corrupt(lineIndex + 1, offset, verdict.reason);
      else firstBad = { line: lineIndex + 1, offset, reason: verdict.reason };
    }
    lineIndex += 1;
  };
  while (pos < fileSize) {
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, fileSize - pos), pos);
    if (n === 0) break;
    const buf = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    const bufStart = pos - carry.length;
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE, start); nl >= 0; nl = buf.indexOf(NEWLINE, start)) {
      take(buf, start, nl, bufStart + start);
      start = nl + 1;
    }
    carry = Buffer.from(buf.subarray(start));
    pos += n;
  }
  if (!firstBad && carry.length > 0)
    firstBad = { line: lineIndex + 1, offset: fileSize - carry.length, reason: 'last line has no newline (interrupted write)' };
  const torn = firstBad ? { offset: good, bytes: fileSize - good, line: firstBad.line, reason: firstBad.reason } : null;
  return { end: good, torn };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The file operations the committer needs; injectable to count or fail them in tests. */
export interface WalIo {
  write(fd: number, buf: Buffer, position: number): Promise<void>;
  sync(fd: number): Promise<void>;
}

/** Real I/O: a full positional write (partial writes continued) and fdatasync. */
export const NODE_WAL_IO: WalIo = { write: writeAll, sync: dataSync };

/** Counters of the committer. */
export interface CommitStats {
  appends: number;
  commits: number;
  bytes: number;
  maxBatch: number;
}

/** Configuration of the group committer. */
export interface GroupCommitConfig<T> {
  readonly fd: number;
  /** Byte offset the next write goes to (end of the verified WAL). */
  readonly position: number;
  /** false: one write + fdatasync per append, in order (the reference for the benchmark). */
  readonly groupCommit: boolean;
  readonly io: WalIo;
  /** Runs synchronously, in append order, once an item is durable and before its promise resolves. */
  readonly onDurable: (item: T, offset: number) => void;
}

/** Durable, ordered appends of byte strings with group commit. */
export interface GroupCommitter<T> {
  commit(bytes: Buffer, item: T): Promise<number>;
  /** Resolves when nothing is queued or being written. */
  drain(): Promise<void>;
  stats(): Readonly<CommitStats>;
  /** Why appends are refused since a write or fsync failed; null while the WAL is writable. */
  failure(): Error | null;
}

interface Queued<T> {
  readonly bytes: Buffer;
  readonly item: T;
  offset: number;
}

/**
 * Creates the WAL's committer on the shared group commit (src/durable/group-commit.ts): appends
 * made while a batch is being written, or within one event-loop turn, share the next single
 * write + fdatasync at the end of the verified WAL.
 */
export function createGroupCommitter<T>(config: Readonly<GroupCommitConfig<T>>): GroupCommitter<T> {
  let position = config.position;
  let appends = 0;
  let bytes = 0;
  let failed: ServiceError | null = null;
  const commit = createGroupCommit<Queued<T>>({
    grouped: config.groupCommit,
    async flush(batch) {
      if (failed) throw failed;
      const buf = batch.length === 1 ? batch[0]!.bytes : Buffer.concat(batch.map((q) => q.bytes));
      try {
        await config.io.write(config.fd, buf, position);
        await config.io.sync(config.fd);
      } catch (err) {
        // After a failed write or fsync the file state is unknown (fsync errors are not
        // retryable): stop accepting appends; a restart replays and cuts the torn tail.
        failed = new ServiceError('internal_error', `ledger write failed (${(err as Error).message}); the ledger is stopped until restart`);
        throw failed;
      }
      bytes += buf.length;
      for (const q of batch) {
        q.offset = position;
        position += q.bytes.length;
        config.onDurable(q.item, q.offset);
      }
    },
  });

  return {
    async commit(buf, item) {
      if (failed) throw failed;
      appends += 1;
      const queued: Queued<T> = { bytes: buf, item, offset: -1 };
      await commit.add(queued);
      return queued.offset;
    },
    drain: commit.drain,
    stats() {
      const s = commit.stats();
      return { appends, commits: s.commits, bytes, maxBatch: s.maxBatch };
    },
    failure: () => failed,
  };
}

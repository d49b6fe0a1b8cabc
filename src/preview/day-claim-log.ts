/**
 * The durable record of the day's used previews: an append-only file of `<UTC day> <client hash>`
 * lines under the data dir, each write group-committed with one fdatasync before its promise
 * resolves (the preview's 200 waits for it, as a paid 200 waits for the replay guard's record).
 *
 * Bounded: only the current day's lines are kept. At open the file is read, a torn last line
 * (a crash mid-append) and other days' lines are dropped, and the rest is rewritten (temp file,
 * fsync, rename); the first write of a new day rewrites the file with that day's lines alone.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CLIENT_HASH_RE } from './client-key.ts';

export interface DayClaimLogConfig {
  /** Directory of the file (created if absent). */
  readonly dir: string;
  readonly file: string;
  /** The current UTC day (`YYYY-MM-DD`): its lines are the ones kept at open. */
  readonly day: string;
}

export interface DayClaimLog {
  /** The client hashes recorded for the open day, as read at open: the caller's to keep and change (the log never reads it again). */
  readonly loaded: Set<string>;
  /** Records `hash` as used on `day`; resolves once it is on disk (a day already past is not written). */
  append(day: string, hash: string): Promise<void>;
  /** Why records can no longer be written (a failed write or fsync), or null. */
  failure(): string | null;
  /** Waits for queued writes. */
  close(): Promise<void>;
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

function readDay(path: string, day: string): Set<string> {
  const hashes = new Set<string>();
  if (!existsSync(path)) return hashes;
  const lines = readFileSync(path, 'utf8').split('\n');
  // The last piece is '' after a complete file, or a line torn by a crash mid-append: never a record.
  lines.pop();
  for (const line of lines) {
    const [lineDay, hash = '', extra] = line.split(' ');
    if (lineDay === day && extra === undefined && CLIENT_HASH_RE.test(hash)) hashes.add(hash);
  }
  return hashes;
}

const linesOf = (day: string, hashes: Iterable<string>) => [...hashes].map((h) => `${day} ${h}\n`).join('');

/** Opens the record, keeping `config.day`'s lines only. */
export function openDayClaimLog(config: DayClaimLogConfig): DayClaimLog {
  if (!DAY_RE.test(config.day)) throw new Error(`day-claim-log: "${config.day}" is not a YYYY-MM-DD day`);
  mkdirSync(config.dir, { recursive: true, mode: 0o700 });
  const path = resolve(config.dir, config.file);
  const loaded = readDay(path, config.day);
  // At start, synchronously: a missing or unwritable data dir fails start-up, not a preview.
  const fd = openSync(`${path}.tmp`, 'w', 0o600);
  try {
    writeSync(fd, linesOf(config.day, loaded));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(`${path}.tmp`, path);
  let fileDay = config.day;
  let failed: string | null = null;
  let pending: { day: string; hash: string; done: () => void; fail: (err: unknown) => void }[] = [];
  let writing: Promise<void> = Promise.resolve();

  async function write(text: string, rewrite: boolean): Promise<void> {
    const target = rewrite ? `${path}.tmp` : path;
    const fh = await open(target, rewrite ? 'w' : 'a', 0o600);
    try {
      // writeFile, not write: write may store part of the text and resolve. (After a failure the
      // log stops until a restart, so a torn tail is never appended to.)
      await fh.writeFile(text);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    if (!rewrite) return;
    await rename(target, path);
    // The rename itself must survive a crash, or the new day's first records would be lost with it.
    const dir = await open(config.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /** Group commit: every record queued while the previous write ran shares one write and one fsync. */
  async function writeBatch(): Promise<void> {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    try {
      if (failed !== null) throw new Error(failed);
      // The latest day of the batch (`YYYY-MM-DD` sorts as text).
      const day = [fileDay, ...batch.map((p) => p.day)].sort().at(-1)!;
      // Records of a day already past are moot; a new day starts a new file.
      const text = linesOf(
        day,
        batch.filter((p) => p.day === day).map((p) => p.hash),
      );
      if (text !== '') await write(text, day !== fileDay);
      fileDay = day;
      for (const p of batch) p.done();
    } catch (err) {
      if (failed === null) {
        // The public 503 names the error code only; the operator's log has the whole message (with the path).
        console.error(`preview quota: write failed, previews stop until restart: ${(err as Error).message}`);
        failed = `previews are stopped: the preview quota file cannot be written (${(err as NodeJS.ErrnoException).code ?? 'write error'}); restart after fixing the disk`;
      }
      for (const p of batch) p.fail(err);
    }
  }

  return {
    loaded,
    append(day, hash) {
      if (!DAY_RE.test(day) || !CLIENT_HASH_RE.test(hash)) return Promise.reject(new Error('day-claim-log: malformed day or client hash'));
      return new Promise<void>((done, fail) => {
        pending.push({ day, hash, done, fail });
        writing = writing.then(writeBatch);
      });
    },
    failure: () => failed,
    close: () => writing,
  };
}

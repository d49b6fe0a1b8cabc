/**
 * The durable record of the day's used previews: an append-only file of `<UTC day> <client hash>`
 * lines under the data dir, each write group-committed with one fdatasync before its promise
 * resolves (the preview's 200 waits for it, as a paid 200 waits for the replay guard's record).
 *
 * Bounded: only the current day's lines are kept. At open the file is read, a torn last line
 * (a crash mid-append) and other days' lines are dropped, and the rest is rewritten (atomically:
 * src/durable/); the first write of a new day rewrites the file with that day's lines alone.
 */
import { resolve } from 'node:path';
import { makeDirSync } from '../durable/file-sync.ts';
import type { AppendFile } from '../durable/append-file.ts';
import { openLineLog, readCompleteLines } from '../durable/line-log.ts';
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

interface Claim {
  readonly day: string;
  readonly hash: string;
}

function readDay(path: string, day: string): Set<string> {
  const hashes = new Set<string>();
  for (const line of readCompleteLines(path)) {
    const [lineDay, hash = '', extra] = line.split(' ');
    if (lineDay === day && extra === undefined && CLIENT_HASH_RE.test(hash)) hashes.add(hash);
  }
  return hashes;
}

const linesOf = (day: string, hashes: Iterable<string>) => [...hashes].map((h) => `${day} ${h}\n`).join('');

/** Opens the record, keeping `config.day`'s lines only. */
export function openDayClaimLog(config: DayClaimLogConfig): DayClaimLog {
  if (!DAY_RE.test(config.day)) throw new Error(`day-claim-log: "${config.day}" is not a YYYY-MM-DD day`);
  makeDirSync(config.dir);
  const path = resolve(config.dir, config.file);
  const loaded = readDay(path, config.day);
  let fileDay = config.day;
  let failed: string | null = null;

  /** Group commit: every record queued while the previous write ran shares one write and one fsync. */
  async function flush(batch: readonly Claim[], file: AppendFile): Promise<void> {
    try {
      if (failed !== null) throw new Error(failed);
      // The latest day of the batch (`YYYY-MM-DD` sorts as text).
      const day = [fileDay, ...batch.map((p) => p.day)].sort().at(-1)!;
      // Records of a day already past are moot; a new day starts a new file (replaced whole, durably).
      const text = linesOf(
        day,
        batch.filter((p) => p.day === day).map((p) => p.hash),
      );
      if (text !== '' && day !== fileDay) await file.replace(text);
      else if (text !== '') await file.append(text);
      fileDay = day;
    } catch (err) {
      if (failed === null) {
        // The public 503 names the error code only; the operator's log has the whole message (with the path).
        console.error(`preview quota: write failed, previews stop until restart: ${(err as Error).message}`);
        failed = `previews are stopped: the preview quota file cannot be written (${(err as NodeJS.ErrnoException).code ?? 'write error'}); restart after fixing the disk`;
      }
      throw err;
    }
  }
  // At start, synchronously: a missing or unwritable data dir fails start-up, not a preview.
  const log = openLineLog<Claim>({ path, startText: linesOf(config.day, loaded), flush });

  return {
    loaded,
    append(day, hash) {
      if (!DAY_RE.test(day) || !CLIENT_HASH_RE.test(hash)) return Promise.reject(new Error('day-claim-log: malformed day or client hash'));
      return log.add({ day, hash });
    },
    failure: () => failed,
    close: () => log.close(),
  };
}

/**
 * A small durable key -> record map for payment state that must survive a restart (pending
 * settlements, payment-identifier answers): an append-only JSON-lines log under the data dir,
 * each write group-committed with one fsync before its promise resolves, read back at start.
 *
 * Bounded by expiry only: every record has one (dropped at load and when the log is compacted).
 * A live record is never dropped to make room: it is money state (a charged payer's retry, a
 * pending settlement). `full()` tells callers the log holds `maxEntries`, so they refuse new paid
 * calls before charging; puts of calls already under way still land. The log is rewritten from memory
 * (atomically: src/durable/) at start and whenever it holds more than twice the live records, so disk use
 * stays proportional to what is live. A torn last line after a crash is never read as a record.
 */
import { resolve } from 'node:path';
import { makeDirSync } from '../../durable/file-sync.ts';
import { openLineLog, readCompleteLines } from '../../durable/line-log.ts';

export interface DurableRecordLogConfig {
  /** Directory of the log (created if absent). */
  readonly dir: string;
  /** File name inside `dir`. */
  readonly file: string;
  /** Where `full()` turns true; never a reason to drop a live record. */
  readonly maxEntries: number;
  readonly now?: () => number;
}

export interface DurableRecordLog<T> {
  /** The live record of `key`, or undefined (expired records are gone). */
  get(key: string): T | undefined;
  /** Stores `value` until `expiresAt` (ms); resolves once it is on disk. */
  put(key: string, value: T, expiresAt: number): Promise<void>;
  /** Forgets `key`; resolves once the removal is on disk. */
  remove(key: string): Promise<void>;
  size(): number;
  /** Whether the live records reach `maxEntries`: new paid calls are to be refused. */
  full(): boolean;
  /** The live records, oldest put first. */
  entries(): IterableIterator<[string, T]>;
  /** Waits for queued writes. */
  flush(): Promise<void>;
}

interface Entry<T> {
  readonly value: T;
  readonly expiresAt: number;
}

type LogLine<T> = { readonly k: string; readonly x: number; readonly v: T } | { readonly k: string; readonly del: true };

function readLog<T>(path: string, now: number): Map<string, Entry<T>> {
  const live = new Map<string, Entry<T>>();
  for (const line of readCompleteLines(path)) {
    let parsed: LogLine<T>;
    try {
      parsed = JSON.parse(line) as LogLine<T>;
    } catch {
      continue;
    }
    if (typeof parsed?.k !== 'string') continue;
    live.delete(parsed.k);
    if ('del' in parsed) continue;
    if (typeof parsed.x === 'number' && parsed.x > now) live.set(parsed.k, { value: parsed.v, expiresAt: parsed.x });
  }
  return live;
}

const lineOf = <T>(key: string, e: Entry<T>): string => `${JSON.stringify({ k: key, x: e.expiresAt, v: e.value })}\n`;

/** Opens (or creates) the log and loads its live records. */
export function createDurableRecordLog<T>(config: DurableRecordLogConfig): DurableRecordLog<T> {
  const now = config.now ?? Date.now;
  makeDirSync(config.dir);
  const path = resolve(config.dir, config.file);
  const entries = readLog<T>(path, now());

  function liveText(): string {
    const t = now();
    for (const [k, e] of entries) if (e.expiresAt <= t) entries.delete(k);
    return [...entries].map(([k, e]) => lineOf(k, e)).join('');
  }

  // Rewritten from memory at start; while serving, a batch that would take the file past twice
  // the live records rewrites it instead (a snapshot now: the batch's own records are in memory
  // already, and puts and removals made meanwhile are appended after the rename).
  const startText = liveText();
  let linesOnDisk = entries.size;
  const log = openLineLog<string>({
    path,
    startText,
    flush: async (lines, file) => {
      if (linesOnDisk + lines.length > 2 * Math.max(entries.size, 64)) {
        const count = entries.size;
        await file.replace(liveText());
        linesOnDisk = count;
      } else {
        await file.append(lines.join(''));
        linesOnDisk += lines.length;
      }
    },
  });
  const append = (line: string): Promise<void> => log.add(line);

  /**
   * Drops expired records from the front. Records are kept in the order they were last put and
   * the callers put every record for one lifetime, so the front expires first. Without this, a
   * record nobody asks for again (most of them) stayed in memory until the size bound, and the
   * compaction threshold, counting it as live, never came: the file grew to twice the bound.
   */
  function dropExpired(): void {
    const t = now();
    for (const [k, e] of entries) {
      if (e.expiresAt > t) return;
      entries.delete(k);
    }
  }

  return {
    get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      return e.value;
    },
    put(key, value, expiresAt) {
      dropExpired();
      const entry = { value, expiresAt };
      const earlier = entries.get(key);
      entries.delete(key);
      entries.set(key, entry);
      return append(lineOf(key, entry)).catch((err: unknown) => {
        // Not on disk: memory must not hold what a restart would not (a pending settlement that
        // was never sent must not be resolved against the chain by the payment's retry).
        if (entries.get(key) === entry) {
          entries.delete(key);
          if (earlier) entries.set(key, earlier);
        }
        throw err;
      });
    },
    remove(key) {
      dropExpired();
      if (!entries.delete(key)) return Promise.resolve();
      return append(`${JSON.stringify({ k: key, del: true })}\n`);
    },
    size() {
      dropExpired();
      return entries.size;
    },
    full() {
      dropExpired();
      return entries.size >= config.maxEntries;
    },
    *entries() {
      dropExpired();
      for (const [k, e] of entries) yield [k, e.value];
    },
    flush: () => log.drain(),
  };
}

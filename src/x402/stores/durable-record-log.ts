/**
 * A small durable key -> record map for payment state that must survive a restart (pending
 * settlements, payment-identifier answers): an append-only JSON-lines log under the data dir,
 * each write group-committed with one fsync before its promise resolves, read back at start.
 *
 * Bounded by expiry only: every record has one (dropped at load and when the log is compacted).
 * A live record is never dropped to make room: it is money state (a charged payer's retry, a
 * pending settlement). `full()` tells callers the log holds `maxEntries` (and `refusal()` also
 * when a record's payer or client holds its share, record-shares.ts), so they refuse new paid
 * calls before charging; puts of calls already under way still land. The log is rewritten from memory
 * (atomically: src/durable/) at start and whenever it holds more than twice the live records, so disk use
 * stays proportional to what is live. A torn last line after a crash is never read as a record.
 */
import { resolve } from 'node:path';
import { replaceFileSync } from '../../durable/atomic-replace.ts';
import type { CommitJournal } from '../../durable/commit-journal.ts';
import { makeDirSync } from '../../durable/file-sync.ts';
import { openLineLog, readCompleteLines } from '../../durable/line-log.ts';
import { lazyWrite, type StagedWrite } from '../../durable/staged-write.ts';
import type { RecordOwners, RecordRefusal, RecordShares } from './record-shares.ts';

export interface DurableRecordLogConfig<T = unknown> {
  /** Directory of the log (created if absent). */
  readonly dir: string;
  /** File name inside `dir`. */
  readonly file: string;
  /** Where `full()` turns true; never a reason to drop a live record. */
  readonly maxEntries: number;
  readonly now?: () => number;
  /** The data directory's commit journal: writes are made durable by its commits (and may ride in a paid call's). */
  readonly journal?: CommitJournal;
  /** Per-payer and per-client counts of the live records, and how a record read back names its payer. */
  readonly shares?: { readonly counts: RecordShares; readonly ownersOf: (value: T) => RecordOwners };
}

export interface DurableRecordLog<T> {
  /** The live record of `key`, or undefined (expired records are gone). */
  get(key: string): T | undefined;
  /** Stores `value` until `expiresAt` (ms); resolves once it is on disk (`owners` as for `stage`). */
  put(key: string, value: T, expiresAt: number, owners?: RecordOwners): Promise<void>;
  /** Forgets `key`; resolves once the removal is on disk. */
  remove(key: string): Promise<void>;
  /** `put`, staged: in memory now, durable with the commit it is handed to (undone if that fails); `owners` counted in memory (a record put again keeps its own). */
  stage(key: string, value: T, expiresAt: number, owners?: RecordOwners): StagedWrite;
  /** `remove`, staged likewise. */
  stageRemove(key: string): StagedWrite;
  size(): number;
  /** Whether the live records reach `maxEntries`: new paid calls are to be refused. */
  full(): boolean;
  /** Why a new record of `owners` has no room (the bound, or its payer's or client's share), or null. */
  refusal(owners: RecordOwners): RecordRefusal | null;
  /** Who the live record of `key` is counted for. */
  owners(key: string): RecordOwners | undefined;
  /** The live records, oldest put first. */
  entries(): IterableIterator<[string, T]>;
  /** Waits for queued writes. */
  flush(): Promise<void>;
}

interface Entry<T> {
  readonly value: T;
  readonly expiresAt: number;
  /** Memory only: who the record is counted for. */
  readonly owners?: RecordOwners;
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
export function createDurableRecordLog<T>(config: DurableRecordLogConfig<T>): DurableRecordLog<T> {
  const now = config.now ?? Date.now;
  makeDirSync(config.dir);
  const path = resolve(config.dir, config.file);
  const entries = readLog<T>(path, now());
  // Every record in or out of memory passes here, so the shares count exactly what is live.
  const shares = config.shares;
  const place = (key: string, entry: Entry<T>) => {
    entries.set(key, entry);
    if (entry.owners) shares?.counts.add(entry.owners);
  };
  const drop = (key: string): boolean => {
    const e = entries.get(key);
    if (!e) return false;
    entries.delete(key);
    if (e.owners) shares?.counts.remove(e.owners);
    return true;
  };
  for (const [k, e] of shares ? entries : []) place(k, { ...e, owners: shares!.ownersOf(e.value) });

  function liveText(): string {
    const t = now();
    for (const [k, e] of entries) if (e.expiresAt <= t) drop(k);
    return [...entries].map(([k, e]) => lineOf(k, e)).join('');
  }

  // Rewritten from memory at start; while serving, the file is compacted (rewritten from memory)
  // once it holds more than twice the live records: on its own log at the batch that would pass
  // that, on a journal at the next checkpoint (the only moment a journaled file may be replaced).
  let flushLog = (): Promise<void> => Promise.resolve();
  const startText = liveText();
  let linesOnDisk = entries.size;
  const tooLong = (adding: number): boolean => linesOnDisk + adding > 2 * Math.max(entries.size, 64);
  // `key`: the record a line rewrites whole (a later line of it in the same commit supersedes this one).
  // `line` is made when written (a voucher's charge, superseded by its kept answer, never is); entries are never changed in place.
  let staged: (line: () => string, key?: string) => Pick<StagedWrite, 'journal' | 'commitAlone'>;
  const { journal } = config;
  if (journal) {
    replaceFileSync(path, startText, 0o600);
    const file = journal.file(path);
    journal.onCheckpoint(async () => {
      if (!tooLong(0)) return;
      const count = entries.size;
      await file.replace(liveText());
      linesOnDisk = count;
    });
    const onDurable = () => {
      linesOnDisk += 1;
    };
    staged = (line, key) => {
      const writes = [lazyWrite(file, line, { key, onDurable })];
      return { journal: { via: journal, writes }, commitAlone: () => journal.commit(writes) };
    };
  } else {
    const log = openLineLog<string>({
      path,
      startText,
      flush: async (lines, file) => {
        if (tooLong(lines.length)) {
          const count = entries.size;
          await file.replace(liveText());
          linesOnDisk = count;
        } else {
          await file.append(lines.join(''));
          linesOnDisk += lines.length;
        }
      },
    });
    staged = (line) => ({ commitAlone: () => log.add(line()) });
    flushLog = () => log.drain();
  }
  const append = (line: string): Promise<void> => staged(() => line).commitAlone();
  /**
   * Drops expired records from the front (records are kept in the order they were last put, each
   * for one lifetime). Without it a record nobody asks for again stayed in memory until the size
   * bound, and the compaction threshold, counting it as live, never came.
   */
  function dropExpired(): void {
    const t = now();
    for (const [k, e] of entries) {
      if (e.expiresAt > t) return;
      drop(k);
    }
  }

  const live = (): number => {
    dropExpired();
    return entries.size;
  };

  function stage(key: string, value: T, expiresAt: number, owners?: RecordOwners): StagedWrite {
    dropExpired();
    const earlier = entries.get(key);
    // A record put again without its client keeps the one it was counted for.
    const kept = owners ? { payer: owners.payer, client: owners.client || (earlier?.owners?.client ?? '') } : earlier?.owners;
    const entry: Entry<T> = kept ? { value, expiresAt, owners: kept } : { value, expiresAt };
    drop(key);
    place(key, entry);
    return {
      ...staged(() => lineOf(key, entry), key),
      settle(err) {
        // Not on disk: memory must not hold what a restart would not (a pending settlement that
        // was never sent must not be resolved against the chain by the payment's retry).
        if (err === null || entries.get(key) !== entry) return;
        drop(key);
        if (earlier) place(key, earlier);
      },
    };
  }

  function stageRemove(key: string): StagedWrite {
    dropExpired();
    const earlier = entries.get(key);
    drop(key);
    return {
      ...staged(() => `${JSON.stringify({ k: key, del: true })}\n`, key),
      settle(err) {
        if (err !== null && earlier && !entries.has(key)) place(key, earlier);
      },
    };
  }

  return {
    get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.expiresAt <= now()) {
        drop(key);
        return undefined;
      }
      return e.value;
    },
    put(key, value, expiresAt, owners?: RecordOwners) {
      const w = stage(key, value, expiresAt, owners);
      return w.commitAlone().then(
        () => w.settle(null),
        (err: unknown) => {
          w.settle(err);
          throw err;
        },
      );
    },
    stage,
    stageRemove,
    remove(key) {
      dropExpired();
      if (!drop(key)) return Promise.resolve();
      return append(`${JSON.stringify({ k: key, del: true })}\n`);
    },
    size: live,
    full: () => live() >= config.maxEntries,
    refusal: (owners) => (live() >= config.maxEntries ? 'full' : (shares?.counts.refusal(owners) ?? null)),
    owners: (key) => entries.get(key)?.owners,
    *entries() {
      dropExpired();
      for (const [k, e] of entries) yield [k, e.value];
    },
    flush: () => (journal ? journal.drain() : flushLog()),
  };
}

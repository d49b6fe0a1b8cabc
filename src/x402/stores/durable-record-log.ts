/**
 * A small durable key -> record map for payment state that must survive a restart (pending
 * settlements, payment-identifier answers): an append-only JSON-lines log under the data dir,
 * each write group-committed with one fsync before its promise resolves, read back at start.
 * Bounded by expiry only (dropped at load and at compaction; `keep` says which expired records are
 * still money state). A live record is never dropped to make room: `full()` / `refusal()` (shares,
 * record-shares.ts) tell callers to refuse new paid calls before charging; puts of calls under way
 * still land. The log is rewritten from memory (atomically: src/durable/) at start and whenever it
 * holds more than twice the live records. A torn last line after a crash is never read as a record.
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
  /** Records still money state past their expiry (an early answer's, outcome unknown): kept `forMs` more instead of dropped, at load and while serving. */
  readonly keep?: { readonly holds: (value: T, key: string) => boolean; readonly forMs: number };
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

function readLog<T>(path: string, now: number, keep: DurableRecordLogConfig<T>['keep']): Map<string, Entry<T>> {
  const live = new Map<string, Entry<T>>();
  const kept = new Map<string, Entry<T>>();
  for (const line of readCompleteLines(path)) {
    let parsed: LogLine<T>;
    try {
      parsed = JSON.parse(line) as LogLine<T>;
    } catch {
      continue;
    }
    if (typeof parsed?.k !== 'string') continue;
    live.delete(parsed.k);
    kept.delete(parsed.k);
    if ('del' in parsed || typeof parsed.x !== 'number') continue;
    if (parsed.x > now) live.set(parsed.k, { value: parsed.v, expiresAt: parsed.x });
    else if (keep?.holds(parsed.v, parsed.k)) kept.set(parsed.k, { value: parsed.v, expiresAt: now + keep.forMs });
  }
  for (const [k, e] of kept) live.set(k, e); // last: the map stays in expiry order (dropExpired reads its front)
  return live;
}

const lineOf = <T>(key: string, e: Entry<T>): string => `${JSON.stringify({ k: key, x: e.expiresAt, v: e.value })}\n`;

/** Opens (or creates) the log and loads its live records. */
export function createDurableRecordLog<T>(config: DurableRecordLogConfig<T>): DurableRecordLog<T> {
  const now = config.now ?? Date.now;
  makeDirSync(config.dir);
  const path = resolve(config.dir, config.file);
  const entries = readLog<T>(path, now(), config.keep);
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
  /** Drops the expired record of `key` (true), or, still money state, moves it to the back for `forMs` more (false). */
  const expire = (key: string, e: Entry<T>, t: number): boolean => {
    drop(key);
    if (!config.keep?.holds(e.value, key)) return true;
    place(key, { ...e, expiresAt: t + config.keep.forMs });
    return false;
  };
  for (const [k, e] of shares ? entries : []) place(k, { ...e, owners: shares!.ownersOf(e.value) });

  function liveText(): string {
    const t = now();
    for (const [k, e] of [...entries]) if (e.expiresAt <= t) expire(k, e, t);
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
  /** Drops expired records from the front (kept in the order last put): else a record nobody asks for stayed in memory, counted live. */
  function dropExpired(): void {
    const t = now();
    for (const [k, e] of entries) {
      if (e.expiresAt > t) return;
      expire(k, e, t);
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
      return e.expiresAt > now() || !expire(key, e, now()) ? e.value : undefined;
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

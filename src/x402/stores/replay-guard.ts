/**
 * One payment buys one answer. In memory: the keys of payments being processed now (so N
 * concurrent copies let exactly one through) and of payments settled recently. On disk under the
 * data dir: an append-only record of settled keys, fsync'd before the 200 leaves, read back at
 * start so a payment replayed after a restart is refused.
 *
 * Bounded: a settled key is kept for REPLAY_KEY_TTL_MS, far beyond the life of what it guards (a
 * Solana blockhash expires after ~150 blocks, about 60-90 s; an x402 challenge after
 * maxTimeoutSeconds 60), after which the chain itself refuses the transaction. The record is two
 * generations of files rotated every TTL, so disk use is at most about two TTLs of payments.
 */
import { resolve } from 'node:path';
import type { CommitJournal } from '../../durable/commit-journal.ts';
import { makeDirSync } from '../../durable/file-sync.ts';
import { openLineLog, readCompleteLines } from '../../durable/line-log.ts';
import type { StagedWrite } from '../../durable/staged-write.ts';

/** How long a settled payment's key is remembered. */
export const REPLAY_KEY_TTL_MS = 10 * 60_000;
const CURRENT_FILE = 'replay-keys.current';
const PREVIOUS_FILE = 'replay-keys.previous';

export interface ReplayGuardConfig {
  /** Directory of the durable record (created if absent). */
  readonly dir: string;
  readonly ttlMs?: number;
  readonly now?: () => number;
  /** The data directory's commit journal: settled keys are made durable by its commits (a paid call's, usually). */
  readonly journal?: CommitJournal;
}

export type AcquireResult = 'acquired' | 'in_flight' | 'settled';

/** A value now (the file record, in memory) or later (a database round trip). */
export type Awaitable<T> = T | Promise<T>;

/**
 * The replay guard as the payment path uses it, whichever store holds it: this file's record, or
 * the database (pg-replay-guard.ts, shared by every instance). A store fault rejects.
 */
export interface ReplayGuard {
  /** Directory of the file record, other file state sits beside it; null when the state is in the database. */
  readonly dir: string | null;
  /** Claims `key` for processing; only one concurrent claim wins, a settled key never does. */
  acquire(key: string): Awaitable<AcquireResult>;
  /** Gives a claim back without settling (verify failed, answer failed, settlement failed). */
  release(key: string): Awaitable<void>;
  /** Records `key` as settled durably and drops the claim. */
  markSettled(key: string): Promise<void>;
  /** `markSettled`, staged: settled in memory now, durable with the commit it is handed to. */
  stageSettled?(key: string): StagedWrite;
  close(): Promise<void>;
}

/** The file record: answers at once, from memory. */
export interface FileReplayGuard extends ReplayGuard {
  readonly dir: string;
  acquire(key: string): AcquireResult;
  release(key: string): void;
  /** Keys in memory (claims plus remembered settlements), for bounds checks. */
  size(): number;
}

const KEY_RE = /^[A-Za-z0-9:_-]{1,200}$/;

function loadFile(path: string, into: Map<string, number>, now: number): void {
  for (const line of readCompleteLines(path)) {
    const space = line.indexOf(' ');
    const expires = Number(line.slice(0, space));
    const key = line.slice(space + 1);
    if (space > 0 && Number.isFinite(expires) && expires > now && KEY_RE.test(key)) into.set(key, expires);
  }
}

/** Opens the record, loading unexpired keys of both generations. */
export function createReplayGuard(config: ReplayGuardConfig): FileReplayGuard {
  const ttlMs = config.ttlMs ?? REPLAY_KEY_TTL_MS;
  const now = config.now ?? Date.now;
  makeDirSync(config.dir);
  const currentPath = resolve(config.dir, CURRENT_FILE);
  const previousPath = resolve(config.dir, PREVIOUS_FILE);
  const settled = new Map<string, number>();
  loadFile(previousPath, settled, now());
  loadFile(currentPath, settled, now());
  const inFlight = new Set<string>();
  let rotatedAt = now();
  const rotationDue = (): boolean => now() - rotatedAt >= ttlMs;
  /** The TTL's rotation: current becomes previous, a new current starts; keys that expired leave memory. */
  const rotated = (): void => {
    const t = now();
    rotatedAt = t;
    for (const [key, expires] of settled) if (expires <= t) settled.delete(key);
  };
  let staged: (line: string) => Pick<StagedWrite, 'journal' | 'commitAlone'>;
  let close: () => Promise<void>;
  const { journal } = config;
  if (journal) {
    const file = journal.file(currentPath);
    // On a journal the rotation waits for a checkpoint: the only moment a journaled file may be renamed.
    journal.onCheckpoint(async () => {
      if (!rotationDue()) return;
      await file.rotate(previousPath);
      rotated();
    });
    staged = (line) => {
      const writes = [{ file, text: line }];
      return { journal: { via: journal, writes }, commitAlone: () => journal.commit(writes) };
    };
    close = () => journal.drain();
  } else {
    // Every line queued while the previous write ran shares one write and one fsync; the TTL's
    // rotation goes first when it is due.
    const log = openLineLog<string>({
      path: currentPath,
      flush: async (lines, file) => {
        if (rotationDue()) {
          await file.rotate(previousPath);
          rotated();
        }
        await file.append(lines.join(''));
      },
    });
    staged = (line) => ({ commitAlone: () => log.add(line) });
    close = () => log.close();
  }

  /** Settled in memory at once, so a concurrent copy is refused whichever write lands first. */
  function stageSettled(key: string): StagedWrite {
    if (!KEY_RE.test(key)) throw new Error('replay key has characters the record cannot hold');
    const expires = now() + ttlMs;
    settled.set(key, expires);
    inFlight.delete(key);
    // Kept settled in memory even when the write fails: the chain refuses a replay of a settled payment anyway.
    return { ...staged(`${expires} ${key}\n`), settle: () => undefined };
  }

  return {
    dir: config.dir,
    acquire(key) {
      const expires = settled.get(key);
      if (expires !== undefined && expires > now()) return 'settled';
      if (inFlight.has(key)) return 'in_flight';
      inFlight.add(key);
      return 'acquired';
    },
    release(key) {
      inFlight.delete(key);
    },
    markSettled(key) {
      if (!KEY_RE.test(key)) return Promise.reject(new Error('replay key has characters the record cannot hold'));
      return stageSettled(key).commitAlone();
    },
    stageSettled,
    size: () => settled.size + inFlight.size,
    close,
  };
}

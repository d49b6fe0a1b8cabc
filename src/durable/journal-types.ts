/**
 * What the commit journal (commit-journal.ts) offers its owners: a commit's writes, a place in
 * commit order, the journal itself and its counters.
 */
import type { JournalFile } from './journal-file.ts';
import type { JournalRecoveryReport } from './journal-recovery.ts';

/** One write of a commit: `text` appended to `file`; `onDurable` runs, in commit order, once it is durable. */
export interface JournalWrite {
  readonly file: JournalFile;
  readonly text: string;
  readonly onDurable?: (offset: number) => void;
  /**
   * The record this write rewrites whole, where its file is a log of records by key: a later write
   * of the same file and key in the same commit supersedes it, so it is not written at all (a
   * channel's charge and its kept answer, one record, staged apart and made durable together).
   * Its `onDurable` does not run: nothing of it reached the file.
   */
  readonly key?: string;
}

/**
 * How a commit is made. `unhurried`: no answer waits for it (an early answer's confirmation,
 * recorded after the answer left). Alone at the head of the queue, such commits wait a little for
 * company (unhurried-gather.ts), so a slot's burst of confirmations shares one device write; they
 * never count as the one commit that may be written on the idle loop
 * (docs/payments.md#what-a-paid-call-writes-and-when).
 */
export interface CommitOptions {
  readonly unhurried?: boolean;
}

/** A place in commit order, filled once its writes are known; `fill([])` gives the place up. */
export interface JournalPlace {
  fill(writes: readonly JournalWrite[]): Promise<void>;
}

export interface JournalStats {
  /** Commits made durable (filled places with writes). */
  commits: number;
  /** Journal writes, each followed by one fdatasync: the durable writes made. */
  syncs: number;
  checkpoints: number;
  maxBatch: number;
}

export interface CommitJournal {
  readonly dir: string;
  /** What the start put back from the journal. */
  readonly recovery: JournalRecoveryReport;
  /** Takes `path` (under `dir`, opened after recovery) into the journal: its writes go through commits. */
  file(path: string, mode?: number): JournalFile;
  reserve(): JournalPlace;
  /**
   * Counts the batches the disk refused. A place reserved before a refusal is refused too, even
   * filled later: whatever was ordered after a refused commit (a ledger entry chained to a refused
   * one) never reaches a file. An owner that orders its own writes starts again from what is
   * durable when this moves on.
   */
  epoch(): number;
  /** reserve() and fill() at once. */
  commit(writes: readonly JournalWrite[], options?: CommitOptions): Promise<void>;
  /** Runs `hook` at every checkpoint, after the journal is emptied; it must not commit. */
  onCheckpoint(hook: () => Promise<void>): void;
  stats(): Readonly<JournalStats>;
  /** Why commits are refused since a write failed (until a restart replays the journal), or null. */
  failure(): string | null;
  /** Resolves once nothing is queued or being written. */
  drain(): Promise<void>;
  /** Drains, checkpoints and releases the files; later commits are refused. */
  close(): Promise<void>;
}

/** What a journal is opened with (commit-journal.ts `openCommitJournal`). */
export interface CommitJournalConfig {
  /** The data directory: the journal and every file it names live under it. */
  readonly dir: string;
  readonly checkpointBytes?: number;
  readonly checkpointMs?: number;
  readonly now?: () => number;
  /**
   * Runs before a batch's journal write (`journal`) and between its fdatasync and the files'
   * writes (`files`): the two boundaries a crash can fall on (tests hold or fail them).
   */
  readonly seam?: (point: 'journal' | 'files') => Promise<void>;
  /** True while the event loop is idle: a batch with at most one hurried commit is then written on the loop (docs/payments.md). */
  readonly writeInline?: () => boolean;
  /** How long unhurried commits alone wait for company (unhurried-gather.ts). */
  readonly unhurriedGatherMs?: number;
}

/**
 * A change of durable state made ready but not yet durable, so that several stores' changes can
 * be made durable by one commit: the ledger's, when a paid call's entry is appended with the
 * payment state it settles (one journal line and one fdatasync for the files, one transaction for
 * the database). A store stages its change (its memory already holds it), hands the staged write
 * to whoever commits, and is told how the commit ended: undone in memory when it failed.
 */
import type { CommitJournal, JournalPlace, JournalWrite } from './commit-journal.ts';
import type { JournalFile } from './journal-file.ts';

/** A database statement run inside the commit's transaction. */
export interface StagedStatement {
  readonly text: string;
  readonly values: readonly unknown[];
  /** When set: the statement must touch this many rows, else the commit of this write fails with `conflict()`. */
  readonly expectRows?: number;
  readonly conflict?: () => Error;
}

export interface StagedWrite {
  /** The journal writes that make it durable, for a store whose files are on `via`. */
  readonly journal?: { readonly via: CommitJournal; readonly writes: readonly JournalWrite[] };
  /** The statement that makes it durable, for a store in the database. */
  readonly sql?: StagedStatement;
  /** Makes it durable on its own, by its store's own path (a commit it cannot ride in). */
  commitAlone(): Promise<void>;
  /** How its commit ended: null durable, else the error (the store undoes its memory change). */
  settle(err: unknown): void;
}

/** Settles every write with the commit's outcome, the last staged first (each undo restores what the one before it left). */
export function settleAll(writes: readonly StagedWrite[], err: unknown): void {
  for (let i = writes.length - 1; i >= 0; i--) writes[i]!.settle(err);
}

/** Commits each write on its own path, side by side; each is settled; rejects with the first failure. */
export async function commitEachAlone(writes: readonly StagedWrite[]): Promise<void> {
  const results = await Promise.allSettled(
    writes.map((w) =>
      w.commitAlone().then(
        () => w.settle(null),
        (err: unknown) => {
          w.settle(err);
          throw err;
        },
      ),
    ),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** Where a commit of staged writes goes: a journal, with a place reserved in its order and writes of the committer's own. */
export interface CommitTarget {
  readonly journal: CommitJournal | null;
  /** A place taken earlier in the journal's order (filled here, even with nothing). */
  readonly place?: JournalPlace;
  /** The committer's own writes, first in the journal commit (the ledger's entry). */
  readonly own?: readonly JournalWrite[];
  /** No answer waits for this commit (journal-types.ts `CommitOptions`). */
  readonly unhurried?: boolean;
}

/**
 * Commits `writes` together: in one journal commit when the target's journal holds them, the
 * rest each on its own path, side by side; every write is settled either way.
 */
export async function commitStaged(writes: readonly StagedWrite[], target: CommitTarget): Promise<void> {
  const { journal } = target;
  const riding = journal ? writes.filter((w) => w.journal?.via === journal) : [];
  const alone = writes.filter((w) => !riding.includes(w));
  const together = async (): Promise<void> => {
    const all = [...(target.own ?? []), ...riding.flatMap((w) => w.journal!.writes)];
    if (!target.place && all.length === 0) return;
    try {
      await (target.place ? target.place.fill(all) : journal!.commit(all, { unhurried: target.unhurried === true }));
    } catch (err) {
      settleAll(riding, err);
      throw err;
    }
    settleAll(riding, null);
  };
  const [a, b] = await Promise.allSettled([together(), commitEachAlone(alone)]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
}

/**
 * A journal write whose text is made when it is first read: one superseded in its commit by a
 * later write of the same record (frame-batch.ts) is never serialized. `line` must give the same
 * text whenever it runs (it reads a value nobody changes in place).
 */
export function lazyWrite(file: JournalFile, line: () => string, rest: Omit<JournalWrite, 'file' | 'text'>): JournalWrite {
  let text: string | null = null;
  return {
    file,
    ...rest,
    get text() {
      text ??= line();
      return text;
    },
  };
}

/**
 * Appends to the ledger the database sequences (docs/scaling.md#the-ledger-in-the-database):
 * group commit in the database. The appends waiting at the moment (up to PG_LEDGER_MAX_BATCH)
 * go in one transaction that locks the head row (`select ... for update`), seals the batch
 * against it (index, prevHash; a payment's receipt is built for its slot then), inserts the lines
 * with one `unnest` statement, moves the head and notifies `ledger`. The row lock orders the
 * instances, so the chain has no gap and no fork; one transaction per instance is in flight. The
 * payment state of each paid call (its charge, replay record, kept answer) is written in that same
 * transaction (pg-ledger-batch.ts): one commit for the whole batch, entries and state together.
 *
 * An append resolves only after its transaction committed (with `synchronous_commit` on: durable).
 * When the database fails, the batch is tried again every PG_LEDGER_RETRY_MS for up to
 * PG_LEDGER_RETRY_WINDOW_MS (a restart of the database), while `failure()` stops new paid calls.
 * A commit whose outcome was lost with the connection is looked up before anything is sealed again,
 * so an entry is never written twice.
 */
import { commitEachAlone, settleAll, type StagedWrite } from '../durable/staged-write.ts';
import { ServiceError } from '../errors.ts';
import type { PgClient } from '../postgres/pg-client.ts';
import type { LedgerDraft } from './ledger-entry.ts';
import type { CommitStats } from './ledger-wal.ts';
import { AttachedWritesError, type AppendResult, type EntryAttachment } from './ledger.ts';
import { appendIn, type Attempt, type SealedBatch, type Waiting } from './pg-ledger-batch.ts';

export { LEDGER_CHANNEL, type SealedBatch } from './pg-ledger-batch.ts';

/** Most entries one transaction appends. */
export const PG_LEDGER_MAX_BATCH = 512;
/** Wait between attempts while the database is away. */
export const PG_LEDGER_RETRY_MS = 250;
/** How long a batch is retried before its appends are refused (a database restart fits in it). */
export const PG_LEDGER_RETRY_WINDOW_MS = 30_000;

/** Configuration of the writer. */
export interface PgLedgerWriterConfig {
  readonly db: Pick<PgClient, 'transaction' | 'query'>;
  readonly now: () => Date;
  /** Runs after a batch committed and before its appends resolve (the view takes it in). */
  readonly onCommitted: (batch: SealedBatch) => Promise<void>;
  readonly retryMs?: number;
  readonly retryWindowMs?: number;
}

/** Durable appends through the database. */
export interface PgLedgerWriter {
  /** The ledger's `append` (ledger.ts): `first` and `attach`'s writes are committed in the entry's transaction. */
  append(draft: LedgerDraft, attach?: EntryAttachment, first?: readonly StagedWrite[]): Promise<AppendResult>;
  stats(): Readonly<CommitStats>;
  failure(): string | null;
  close(): Promise<void>;
}

const LOOKUP = 'select line from ledger_entries where idx = $1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every write of `w` the attempt knows, first to last. */
const writesOf = (attempt: Attempt | null, w: Waiting): readonly StagedWrite[] => {
  const i = attempt?.sealed.indexOf(w) ?? -1;
  return i < 0 ? w.first : attempt!.writes[i]!.map((o) => o.write);
};

/** Creates the writer; nothing is read until the first append. */
export function createPgLedgerWriter(config: Readonly<PgLedgerWriterConfig>): PgLedgerWriter {
  const retryMs = config.retryMs ?? PG_LEDGER_RETRY_MS;
  const windowMs = config.retryWindowMs ?? PG_LEDGER_RETRY_WINDOW_MS;
  const stats: CommitStats = { appends: 0, commits: 0, bytes: 0, maxBatch: 0 };
  let queue: Waiting[] = [];
  let running: Promise<void> | null = null;
  let failing: string | null = null;
  let closed = false;

  /** Whether `attempt` committed, asked until the database answers or the window is over. */
  async function committed(attempt: Attempt, deadline: number): Promise<boolean> {
    const { first, lines } = attempt.batch;
    for (;;) {
      try {
        const [row] = await config.db.query<{ line: string }>(LOOKUP, [first]);
        return row?.line === lines[0];
      } catch (err) {
        if (performance.now() > deadline) throw err;
        await sleep(retryMs);
      }
    }
  }

  /** Commits `waiting` as one batch, retrying through database faults within the window; `last` learns each attempt. */
  async function flush(waiting: readonly Waiting[], last: { attempt: Attempt | null }): Promise<Attempt> {
    const deadline = performance.now() + windowMs;
    for (;;) {
      let tried: Attempt | null = null;
      try {
        return await config.db.transaction((tx) => appendIn(tx, waiting, config.now, (a) => (tried = last.attempt = a)));
      } catch (err) {
        const t = tried as Attempt | null;
        if (t !== null && t.batch.lines.length > 0 && (await committed(t, deadline))) return t;
        if (!(err instanceof ServiceError && err.code === 'database_unavailable') || performance.now() > deadline) throw err;
        failing = 'the ledger database is unavailable; retrying until it is back';
        waiting = t === null ? waiting : t.retry;
        await sleep(retryMs);
      }
    }
  }

  /** Settles every write of a committed batch and answers its appends; writes without a statement are committed now, on their own. */
  async function deliver(attempt: Attempt): Promise<void> {
    const { batch, sealed, writes, refused } = attempt;
    failing = null;
    stats.commits += 1;
    stats.maxBatch = Math.max(stats.maxBatch, batch.lines.length);
    for (const line of batch.lines) stats.bytes += Buffer.byteLength(line) + 1;
    for (const [w, err] of refused) {
      settleAll(w.first, err);
      w.reject(err);
    }
    const alone = writes.flat().filter((o) => !o.write.sql);
    await Promise.all(alone.map((o) => commitEachAlone([o.write]).catch((err: unknown) => (o.err = err))));
    // Committed is what counts; a view that cannot read back now catches up on its next poll.
    await config.onCommitted(batch).catch(() => undefined);
    for (const [i, w] of sealed.entries()) {
      const item = writes[i]!;
      for (let j = item.length - 1; j >= 0; j--) if (item[j]!.write.sql) item[j]!.write.settle(item[j]!.err);
      const failed = item.find((o) => o.err !== null);
      if (failed) w.reject(new AttachedWritesError(batch.results[i]!, failed.err));
      else w.resolve(batch.results[i]!);
    }
  }

  async function run(): Promise<void> {
    // Appends of the same event-loop turn (concurrent requests) join one batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (queue.length > 0) {
      const waiting = queue.slice(0, PG_LEDGER_MAX_BATCH);
      queue = queue.slice(waiting.length);
      const last: { attempt: Attempt | null } = { attempt: null };
      try {
        await deliver(await flush(waiting, last));
      } catch (err) {
        for (const w of waiting) {
          settleAll(writesOf(last.attempt, w), err);
          w.reject(err);
        }
      } finally {
        failing = null;
      }
    }
  }

  const kick = (): void => {
    running ??= run().finally(() => {
      running = null;
      if (queue.length > 0) kick();
    });
  };

  return {
    append(draft, attach, first = []) {
      if (closed) {
        const err = new ServiceError('shutting_down', 'the ledger is closed');
        settleAll(first, err);
        return Promise.reject(err);
      }
      stats.appends += 1;
      const promise = new Promise<AppendResult>((resolve, reject) => queue.push({ draft, attach, first, resolve, reject }));
      kick();
      return promise;
    },
    stats: () => ({ ...stats }),
    failure: () => failing,
    async close() {
      closed = true;
      while (running) await running;
    },
  };
}

/**
 * Appends to the ledger the database sequences (docs/scaling.md#the-ledger-in-the-database):
 * group commit in the database. The appends waiting at the moment (up to PG_LEDGER_MAX_BATCH)
 * go in one transaction that locks the head row (`select ... for update`), seals the batch
 * against it (index, prevHash; a payment's receipt is built for its slot then), inserts the lines
 * with one `unnest` statement, moves the head and notifies `ledger`. The row lock orders the
 * instances, so the chain has no gap and no fork; one transaction per instance is in flight.
 *
 * An append resolves only after its transaction committed (with `synchronous_commit` on: durable).
 * When the database fails, the batch is tried again every PG_LEDGER_RETRY_MS for up to
 * PG_LEDGER_RETRY_WINDOW_MS (a restart of the database), while `failure()` stops new paid calls.
 * A commit whose outcome was lost with the connection is looked up before anything is sealed again,
 * so an entry is never written twice.
 */
import { ServiceError } from '../errors.ts';
import type { PgClient, PgQuery } from '../postgres/pg-client.ts';
import { sealEntry, type LedgerDraft } from './ledger-entry.ts';
import type { CommitStats } from './ledger-wal.ts';
import type { AppendResult } from './ledger.ts';

/** The notification channel of committed appends (payload: the new tree size). */
export const LEDGER_CHANNEL = 'ledger';
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

/** A batch as sealed in its transaction. */
export interface SealedBatch {
  readonly first: number;
  readonly lines: readonly string[];
  readonly results: readonly AppendResult[];
}

/** Durable appends through the database. */
export interface PgLedgerWriter {
  append(draft: LedgerDraft): Promise<AppendResult>;
  stats(): Readonly<CommitStats>;
  failure(): string | null;
  close(): Promise<void>;
}

interface Waiting {
  readonly draft: LedgerDraft;
  readonly resolve: (r: AppendResult) => void;
  readonly reject: (err: unknown) => void;
}

interface Attempt {
  readonly batch: SealedBatch;
  /** The waiting appends, in the order of `batch.results` (a draft that failed to seal is out). */
  readonly sealed: readonly Waiting[];
}

const HEAD = 'select size, chain_head from ledger_head where id = 1 for update';
// Data-modifying CTEs run whether or not the outer query reads them: one round trip under the lock.
const APPEND = `with added as (insert into ledger_entries (idx, line) select * from unnest($1::bigint[], $2::text[])),
  moved as (update ledger_head set size = $3::bigint, chain_head = $4 where id = 1)
  select pg_notify('${LEDGER_CHANNEL}', ($3::bigint)::text)`;
const LOOKUP = 'select line from ledger_entries where idx = $1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Seals `waiting` from the locked head; a draft that cannot be an entry is refused alone. */
function sealFrom(waiting: readonly Waiting[], size: number, chainHead: string, time: Date): Attempt {
  const lines: string[] = [];
  const results: AppendResult[] = [];
  const sealed: Waiting[] = [];
  let prevHash = chainHead;
  for (const w of waiting) {
    try {
      const { entry, line } = sealEntry(w.draft, { index: size + lines.length, prevHash }, time);
      lines.push(line);
      results.push({ index: entry.index, entrySha256: entry.entrySha256, chainHead: entry.entrySha256, treeSize: entry.index + 1 });
      sealed.push(w);
      prevHash = entry.entrySha256;
    } catch (err) {
      w.reject(err);
    }
  }
  return { batch: { first: size, lines, results }, sealed };
}

async function appendIn(tx: PgQuery, waiting: readonly Waiting[], now: () => Date, seen: (a: Attempt) => void): Promise<Attempt> {
  const [head] = await tx.query<{ size: number; chain_head: string }>(HEAD);
  if (!head) throw new ServiceError('internal_error', 'the ledger_head row is missing from the database');
  const attempt = sealFrom(waiting, head.size, head.chain_head, now());
  seen(attempt);
  const { first, lines, results } = attempt.batch;
  if (lines.length === 0) return attempt;
  await tx.query(APPEND, [lines.map((_, i) => first + i), lines, first + lines.length, results.at(-1)!.entrySha256]);
  return attempt;
}

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

  /** Commits `waiting` as one batch, retrying through database faults within the window. */
  async function flush(waiting: readonly Waiting[]): Promise<Attempt> {
    const deadline = performance.now() + windowMs;
    for (;;) {
      let tried: Attempt | null = null;
      try {
        return await config.db.transaction((tx) => appendIn(tx, waiting, config.now, (a) => (tried = a)));
      } catch (err) {
        const last = tried as Attempt | null;
        if (last !== null && last.batch.lines.length > 0 && (await committed(last, deadline))) return last;
        if (!(err instanceof ServiceError && err.code === 'database_unavailable') || performance.now() > deadline) throw err;
        failing = 'the ledger database is unavailable; retrying until it is back';
        waiting = last === null ? waiting : last.sealed;
        await sleep(retryMs);
      }
    }
  }

  async function deliver(attempt: Attempt): Promise<void> {
    const { batch, sealed } = attempt;
    failing = null;
    stats.commits += 1;
    stats.maxBatch = Math.max(stats.maxBatch, batch.lines.length);
    for (const line of batch.lines) stats.bytes += Buffer.byteLength(line) + 1;
    // Committed is what counts; a view that cannot read back now catches up on its next poll.
    await config.onCommitted(batch).catch(() => undefined);
    for (const [i, w] of sealed.entries()) w.resolve(batch.results[i]!);
  }

  async function run(): Promise<void> {
    // Appends of the same event-loop turn (concurrent requests) join one batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (queue.length > 0) {
      const waiting = queue.slice(0, PG_LEDGER_MAX_BATCH);
      queue = queue.slice(waiting.length);
      try {
        await deliver(await flush(waiting));
      } catch (err) {
        for (const w of waiting) w.reject(err);
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
    append(draft) {
      if (closed) return Promise.reject(new ServiceError('shutting_down', 'the ledger is closed'));
      stats.appends += 1;
      const promise = new Promise<AppendResult>((resolve, reject) => queue.push({ draft, resolve, reject }));
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

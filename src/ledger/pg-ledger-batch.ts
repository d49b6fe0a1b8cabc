/**
 * One batch of the database ledger in its transaction (pg-ledger-writer.ts runs it, and again
 * after a fault): the head row locked, each append's charge checked, the survivors sealed and
 * inserted, then the payment state attached to each entry written, all in the one transaction.
 * So a paid call's entry, charge, replay record and kept answer are committed together, and a
 * batch of N paid calls is one transaction.
 *
 * Why the charge goes before sealing and not under a SAVEPOINT after it: an entry sealed is a link
 * of the chain (the next entry's prevHash is its hash, its receipt is signed for its index), so an
 * entry cannot leave a sealed batch without sealing the rest again. A SAVEPOINT per item would keep
 * the chain whole only by keeping the entry of a charge that failed: a receipt for a voucher that
 * was refused. Checked first, a charge that another instance beat (its row moved to another
 * revision) takes its append out of the batch before any index is given, so the chain is sealed
 * over charged calls only, without holes. What is written after sealing cannot conflict that way:
 * the channel row is locked by this transaction's own charge, the replay record is an upsert; a
 * statement that still touches fewer rows than expected changed nothing and fails its own write,
 * the entry staying (as when `attach` fails). Every statement here is pure (values fixed when it
 * was staged), so the batch runs again after a fault without any memory having moved.
 */
import type { StagedWrite } from '../durable/staged-write.ts';
import { ServiceError } from '../errors.ts';
import type { PgQuery, SqlParam } from '../postgres/pg-client.ts';
import { sealEntry, type LedgerDraft } from './ledger-entry.ts';
import type { AppendResult, EntryAttachment } from './ledger.ts';

/** The notification channel of committed appends (payload: the new tree size). */
export const LEDGER_CHANNEL = 'ledger';

/** An append waiting for its batch. */
export interface Waiting {
  readonly draft: LedgerDraft;
  readonly attach?: EntryAttachment;
  /** Writes the entry depends on (a voucher's charge): run before sealing; one that fails keeps the entry out. */
  readonly first: readonly StagedWrite[];
  readonly resolve: (r: AppendResult) => void;
  readonly reject: (err: unknown) => void;
}

/** A batch as sealed in its transaction. */
export interface SealedBatch {
  readonly first: number;
  readonly lines: readonly string[];
  readonly results: readonly AppendResult[];
}

/** A write and how its statement went in this transaction (null: it did what it expected). */
export interface WriteOutcome {
  readonly write: StagedWrite;
  err: unknown;
}

export interface Attempt {
  readonly batch: SealedBatch;
  /** The waiting appends, in the order of `batch.results`. */
  readonly sealed: readonly Waiting[];
  /** Per sealed append: its writes (first, then attached) with their outcomes; a write without `sql` waits for `commitAlone`. */
  readonly writes: WriteOutcome[][];
  /** Appends kept out before sealing: a write they depend on failed (another instance charged first). */
  readonly refused: ReadonlyArray<readonly [Waiting, unknown]>;
  /** What a retry of this batch tries again: every append not refused for good (an unsealable draft is). */
  readonly retry: readonly Waiting[];
}

const HEAD = 'select size, chain_head from ledger_head where id = 1 for update';
// Data-modifying CTEs run whether or not the outer query reads them: one round trip under the lock.
const APPEND = `with added as (insert into ledger_entries (idx, line) select * from unnest($1::bigint[], $2::text[])),
  moved as (update ledger_head set size = $3::bigint, chain_head = $4 where id = 1)
  select pg_notify('${LEDGER_CHANNEL}', ($3::bigint)::text)`;

/** Runs `w`'s statement; the error its store names when it touched other than the expected rows, else null. */
async function run(tx: PgQuery, w: StagedWrite): Promise<unknown> {
  const s = w.sql!;
  const rows = await tx.query(s.text, s.values as readonly SqlParam[]);
  if (s.expectRows === undefined || rows.length === s.expectRows) return null;
  return s.conflict?.() ?? new ServiceError('internal_error', `a staged statement touched ${rows.length} rows, not ${s.expectRows}`);
}

/**
 * Runs each append's `first` statements: the first that fails keeps the append out of the batch.
 * Several statements are framed by a SAVEPOINT, so a later one failing undoes the earlier; one
 * alone that touched no row changed nothing (the usual case: one charge), so it needs none.
 */
async function checkFirst(tx: PgQuery, waiting: readonly Waiting[]) {
  const kept: Waiting[] = [];
  const refused: Array<readonly [Waiting, unknown]> = [];
  for (const w of waiting) {
    const statements = w.first.filter((f) => f.sql);
    const framed = statements.length > 1;
    if (framed) await tx.query('savepoint ledger_first');
    let err: unknown = null;
    for (const s of statements) if (err === null) err = await run(tx, s);
    if (framed) await tx.query(err === null ? 'release savepoint ledger_first' : 'rollback to savepoint ledger_first');
    if (err === null) kept.push(w);
    else refused.push([w, err]);
  }
  return { kept, refused };
}

/** Seals `waiting` from the locked head; a draft that cannot be an entry is refused alone, for good. */
function sealFrom(waiting: readonly Waiting[], size: number, chainHead: string, time: Date) {
  const lines: string[] = [];
  const results: AppendResult[] = [];
  const sealed: Waiting[] = [];
  const unsealable = new Set<Waiting>();
  let prevHash = chainHead;
  for (const w of waiting) {
    try {
      const { entry, line } = sealEntry(w.draft, { index: size + lines.length, prevHash }, time);
      lines.push(line);
      results.push({ index: entry.index, entrySha256: entry.entrySha256, chainHead: entry.entrySha256, treeSize: entry.index + 1 });
      sealed.push(w);
      prevHash = entry.entrySha256;
    } catch (err) {
      unsealable.add(w);
      w.reject(err);
    }
  }
  return { batch: { first: size, lines, results }, sealed, unsealable };
}

/** Each sealed append's attached writes, built side by side (each awaits its receipt's signature). */
function attachAll(attempt: Attempt): Promise<Array<readonly StagedWrite[]>> {
  return Promise.all(attempt.sealed.map((w, i) => (w.attach ? w.attach(attempt.batch.results[i]!).catch(() => []) : Promise.resolve([]))));
}

/** The whole batch in `tx`; `seen` learns the attempt as soon as it is sealed (a commit whose answer is lost is looked up by it). */
export async function appendIn(tx: PgQuery, waiting: readonly Waiting[], now: () => Date, seen: (a: Attempt) => void): Promise<Attempt> {
  const [head] = await tx.query<{ size: number; chain_head: string }>(HEAD);
  if (!head) throw new ServiceError('internal_error', 'the ledger_head row is missing from the database');
  const { kept, refused } = await checkFirst(tx, waiting);
  const { batch, sealed, unsealable } = sealFrom(kept, head.size, head.chain_head, now());
  const writes = sealed.map((w) => w.first.map((write): WriteOutcome => ({ write, err: null })));
  const attempt: Attempt = { batch, sealed, writes, refused, retry: waiting.filter((w) => !unsealable.has(w)) };
  seen(attempt);
  if (batch.lines.length === 0) return attempt;
  // The receipts are signed in the pool while the lines go in.
  const attaching = attachAll(attempt);
  try {
    await tx.query(APPEND, [batch.lines.map((_, i) => batch.first + i), batch.lines, batch.first + batch.lines.length, batch.results.at(-1)!.entrySha256]);
  } finally {
    // Awaited even when the insert failed: an attach of this attempt must not finish after the next one's.
    await attaching.catch(() => undefined);
  }
  for (const [i, staged] of (await attaching).entries()) {
    const item = writes[i]!;
    for (const write of staged) {
      // A write after one of its item's that failed is not run: it may build on it (the kept answer on the charge's revision).
      const err = !write.sql ? null : item.some((o) => o.err !== null) ? new Error('an earlier write of this paid call failed') : await run(tx, write);
      item.push({ write, err });
    }
  }
  return attempt;
}

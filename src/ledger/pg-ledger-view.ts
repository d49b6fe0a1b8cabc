/**
 * One instance's read-only view of the ledger that the database sequences (docs/scaling.md#the-ledger-in-the-database):
 * the rows of `ledger_entries`, taken in index order, re-verified (canonical line, index, chain
 * link, hash) and absorbed into the same durable state the file ledger keeps (offset index, both
 * Merkle trees), so `/ledger`, proofs, checkpoints and consistency proofs are computed by the
 * same code from the same entries on every instance.
 *
 * The lines are copied into a derived file under the instance's data dir (the reader reads
 * entries back from it by offset, as from the WAL). The file is not the record: the table is. It
 * is rebuilt from the table at every start and never fsync'd; a crash loses nothing but the copy.
 */
import { closeSync, rmSync, writeSync } from 'node:fs';
import { ServiceError } from '../errors.ts';
import type { PgQuery } from '../postgres/pg-client.ts';
import { absorb, openDurableState } from './ledger-durable-state.ts';
import { parseEntryLine, type LedgerEntry } from './ledger-entry.ts';
import { createLedgerReader, type LedgerReader } from './ledger-reader.ts';

/** Rows read per query while catching up (a start on a long ledger reads it in pages). */
export const VIEW_PAGE_ROWS = 5_000;

/** Configuration of the view. */
export interface PgLedgerViewConfig {
  readonly db: PgQuery;
  /** Directory of the derived copy (emptied at open). */
  readonly dir: string;
  readonly nodeStore?: 'file' | 'memory';
}

/** Entries this instance just committed, as sealed: absorbed without reading them back when they come next. */
export interface OwnBatch {
  readonly first: number;
  readonly lines: readonly string[];
}

/** The view: the reader over what it has absorbed, and how it catches up. */
export interface PgLedgerView extends LedgerReader {
  size(): number;
  bytes(): number;
  /**
   * Catches up with the table: at least to `minSize` entries when given (the caller knows they
   * are committed), else to whatever is committed now. Catch-ups run one at a time, in order.
   */
  catchUp(minSize?: number, own?: OwnBatch): Promise<void>;
  /** Calls `listener` with every entry absorbed from now on, in index order; returns the unsubscribe. */
  onEntry(listener: (entry: LedgerEntry) => void): () => void;
  /** Waits for the catch-up running, then releases the copy's files. */
  close(): Promise<void>;
}

const PAGE = 'select line from ledger_entries where idx >= $1 order by idx limit $2';

function writeAll(fd: number, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done, position + done);
}

/** Opens an empty view in `config.dir`; the first `catchUp()` loads the table. */
export function openPgLedgerView(config: Readonly<PgLedgerViewConfig>): PgLedgerView {
  rmSync(config.dir, { recursive: true, force: true });
  const { fd, state } = openDurableState({ dir: config.dir, nodeStore: config.nodeStore });
  const listeners = new Set<(entry: LedgerEntry) => void>();
  let queue: Promise<void> = Promise.resolve();
  let closed = false;

  const take = (line: string): void => {
    const parsed = parseEntryLine(line, { index: state.size, prevHash: state.chainHead });
    if (!parsed.ok) throw new ServiceError('internal_error', `ledger table corrupt at index ${state.size}: ${parsed.reason}`, { index: state.size });
    const buf = Buffer.from(`${line}\n`);
    writeAll(fd, buf, state.endOffset);
    absorb(state, parsed.entry, state.endOffset, buf.length);
    for (const listener of listeners) {
      try {
        listener(parsed.entry);
      } catch (err) {
        console.error(`ledger: an append listener failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };

  /** Reads pages until the view holds `minSize` entries, or (without it) until the table has no more. */
  const pull = async (minSize: number | undefined): Promise<void> => {
    for (;;) {
      const rows = await config.db.query<{ line: string }>(PAGE, [state.size, VIEW_PAGE_ROWS]);
      if (closed) return;
      for (const row of rows) take(row.line);
      const done = minSize === undefined ? rows.length < VIEW_PAGE_ROWS : state.size >= minSize;
      if (done) return;
      if (rows.length === 0) throw new ServiceError('internal_error', `ledger table has ${state.size} entries where ${minSize} were committed`);
    }
  };

  const run = async (minSize: number | undefined, own: OwnBatch | undefined): Promise<void> => {
    if (closed || (minSize !== undefined && state.size >= minSize)) return;
    // Our own batch right after what the view holds: no need to read it back.
    if (own && own.first === state.size) for (const line of own.lines) take(line);
    if (minSize === undefined || state.size < minSize) await pull(minSize);
  };

  return {
    ...createLedgerReader(fd, state),
    size: () => state.size,
    bytes: () => state.endOffset,
    catchUp(minSize, own) {
      const next = queue.then(() => run(minSize, own));
      queue = next.catch(() => undefined);
      return next;
    },
    onEntry(listener) {
      const own = (entry: LedgerEntry) => listener(entry);
      listeners.add(own);
      return () => void listeners.delete(own);
    },
    async close() {
      closed = true;
      await queue;
      state.specTree.close();
      state.rfcTree.close();
      closeSync(fd);
    },
  };
}

/**
 * The ledger in PostgreSQL (docs/scaling.md#the-ledger-in-the-database): ONE hash chain and ONE
 * Merkle tree whichever instance appends. Appends are sequenced by the database with group commit
 * (pg-ledger-writer.ts); every instance answers reads from its own view caught up from the table
 * (pg-ledger-view.ts): at once on its own commits, on the `ledger` notification of the others',
 * and every PG_LEDGER_POLL_MS besides (a notification lost with a dropped connection). So
 * `/ledger`, inclusion and consistency proofs and signed tree heads agree on every instance of a
 * deployment (all run with the one service identity).
 *
 * Same contract as the file ledger (ledger.ts): `append` resolves only once its entry is durable
 * (committed) and already in this instance's view; a paid 200 waits for it. The writes staged with
 * it (`first`, `attach`) are committed in the entry's transaction.
 */
import type { PgClient } from '../postgres/pg-client.ts';
import type { Ledger } from './ledger.ts';
import { createPgLedgerWriter, LEDGER_CHANNEL } from './pg-ledger-writer.ts';
import { openPgLedgerView } from './pg-ledger-view.ts';

/** The longest another instance's commit goes unseen here when its notification was lost. */
export const PG_LEDGER_POLL_MS = 1_000;

/** Configuration of the database ledger. */
export interface PgLedgerConfig {
  readonly db: Pick<PgClient, 'query' | 'transaction' | 'listen'>;
  /** Directory of this instance's derived copy (e.g. `<data-dir>/ledger-view`). */
  readonly viewDir: string;
  readonly nodeStore?: 'file' | 'memory';
  readonly now?: () => Date;
  readonly pollMs?: number;
  readonly retryMs?: number;
  readonly retryWindowMs?: number;
}

/** Loads the table into a fresh view (verifying the chain), then follows it. */
export async function createPgLedger(config: Readonly<PgLedgerConfig>): Promise<Ledger> {
  const started = performance.now();
  const { db } = config;
  const view = openPgLedgerView({ db, dir: config.viewDir, nodeStore: config.nodeStore });
  const refresh = (): void => void view.catchUp().catch(() => undefined);
  let unlisten: () => Promise<void> = async () => undefined;
  try {
    await view.catchUp();
    unlisten = await db.listen(LEDGER_CHANNEL, (payload) => {
      if (Number(payload) > view.size()) refresh();
    });
  } catch (err) {
    await view.close();
    throw err;
  }
  const timer = setInterval(refresh, config.pollMs ?? PG_LEDGER_POLL_MS);
  timer.unref();
  const writer = createPgLedgerWriter({
    db,
    now: config.now ?? (() => new Date()),
    retryMs: config.retryMs,
    retryWindowMs: config.retryWindowMs,
    onCommitted: (batch) => view.catchUp(batch.first + batch.lines.length, batch),
  });
  const { size, bytes, catchUp: _catchUp, onEntry, close: closeView, ...reader } = view;
  return {
    ...reader,
    openReport: Object.freeze({ entries: size(), bytes: bytes(), tornTail: null, replayMs: performance.now() - started }),
    append: (draft, attach, first) => writer.append(draft, attach, first),
    stats: () => writer.stats(),
    failure: () => writer.failure(),
    onAppend: (listener) => onEntry(listener),
    async close() {
      clearInterval(timer);
      await writer.close();
      await unlisten().catch(() => undefined);
      await closeView();
    },
  };
}

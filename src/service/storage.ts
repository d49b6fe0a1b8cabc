/**
 * The storage seam, chosen once at start (docs/scaling.md): without `--database-url` the payment
 * state and the kill switch live in files under the data dir, exactly as they always have; with
 * it they live in PostgreSQL, shared by every instance on that database (schema migrated first),
 * and so does the free preview's daily quota. The channel state stays in files either way for now.
 */
import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import { openCommitJournal, type CommitJournal } from '../durable/commit-journal.ts';
import { openPgPreviewQuota } from '../preview/pg-preview-quota.ts';
import { openPreviewQuota, type PreviewQuota } from '../preview/preview-quota.ts';
import { startExpirySweeper, type ExpirySweeper } from '../postgres/expiry-sweeper.ts';
import { applyMigrations } from '../postgres/migrate.ts';
import { createPgClient, type PgClient } from '../postgres/pg-client.ts';
import { createKillSwitch, type KillSwitch } from '../operations/kill-switch.ts';
import type { Ledger } from '../ledger/ledger.ts';
import { openPgKillSwitch } from '../operations/pg-kill-switch.ts';
import { createEarlyAnswerStore, type EarlyAnswerStore } from '../x402/stores/early-answer-store.ts';
import { createPaidAnswerStore, type PaidAnswerStore } from '../x402/stores/paid-answer-store.ts';
import { createPgEarlyAnswerStore } from '../x402/stores/pg-early-answer-store.ts';
import { createPendingSettlements, type PendingSettlements, unresolvedEarly } from '../x402/stores/pending-settlements.ts';
import { CLAIM_LEASE_MARGIN_MS, createPgReplayGuard } from '../x402/stores/pg-replay-guard.ts';
import { createPgPaidAnswerStore } from '../x402/stores/pg-paid-answer-store.ts';
import { createPgPendingSettlements } from '../x402/stores/pg-pending-settlements.ts';
import { createReplayGuard, type ReplayGuard } from '../x402/stores/replay-guard.ts';

/** Where the shared state lives; `database` is null for files. */
export interface Storage {
  readonly kind: 'files' | 'postgres';
  readonly database: PgClient | null;
  /** For the start-up line: the data dir, or the database URL with its password hidden. */
  readonly where: string;
  /** Files only: the data directory's commit journal, through which every file store and the ledger commit. */
  readonly journal: CommitJournal | null;
  close(): Promise<void>;
}

/**
 * What `/health` shows of the storage: its kind and, with files, the commit journal's counters
 * (`durableWrites`: journal writes, each one trip to the device, shared by the commits of a batch).
 */
export function storageStatus(storage: Pick<Storage, 'kind' | 'journal'>): Readonly<Record<string, unknown>> {
  if (!storage.journal) return { kind: storage.kind };
  const s = storage.journal.stats();
  return {
    kind: storage.kind,
    journal: { commits: s.commits, durableWrites: s.syncs, largestBatch: s.maxBatch, checkpoints: s.checkpoints, writable: storage.journal.failure() === null },
  };
}

/** The replay guard and, in the database, the stores beside it (files: the processor's defaults beside the guard). */
export interface PaymentStores {
  readonly replayGuard: ReplayGuard;
  readonly pending?: PendingSettlements;
  readonly paidAnswers?: PaidAnswerStore;
  /** Early answers' outcomes and barred payers, beside the replay record. */
  readonly earlyStore: EarlyAnswerStore;
}

/** Opens the storage `config` names: files, or the database with its schema migrated. */
export async function openStorage(
  config: Readonly<Pick<Config, 'dataDir' | 'databaseUrl'> & Partial<Pick<Config, 'databaseTimeoutMs'>>>,
  loopBusy: () => boolean,
): Promise<Storage> {
  if (config.databaseUrl === null) {
    // Opened first: what a crash left in it is laid down in the files before any store reads them.
    const journal = openCommitJournal({ dir: config.dataDir, writeInline: () => !loopBusy() });
    if (journal.recovery.commits > 0 || journal.recovery.tornBytes > 0)
      console.warn(`storage: put back ${journal.recovery.commits} commit(s) from the journal after a stop (${JSON.stringify(journal.recovery)})`);
    return { kind: 'files', database: null, where: config.dataDir, journal, close: () => journal.close() };
  }
  const timeouts = config.databaseTimeoutMs ? { queryTimeoutMs: config.databaseTimeoutMs, connectTimeoutMs: config.databaseTimeoutMs } : {};
  const database = createPgClient({ url: config.databaseUrl, ...timeouts });
  let sweeper: ExpirySweeper;
  try {
    await applyMigrations(database);
    sweeper = startExpirySweeper({ db: database });
  } catch (err) {
    await database.close();
    throw err;
  }
  return {
    kind: 'postgres',
    database,
    where: database.redactedUrl,
    journal: null,
    async close() {
      sweeper.close();
      await database.close();
    },
  };
}

/** The payment state of `storage`; a claim's lease outlasts the longest settlement. `now`: the files' clock (tests). */
export function openPaymentStores(
  storage: Storage,
  options: Readonly<Pick<Config, 'dataDir' | 'settleTimeoutMs'> & Partial<Pick<Config, 'paymentRecordsMax' | 'paymentRecordShares'>>>,
  now: () => number = Date.now,
): PaymentStores {
  const db = storage.database;
  const dir = resolve(options.dataDir, 'replay');
  if (db === null) {
    const journal = storage.journal ?? undefined;
    const bound = {
      ...(options.paymentRecordsMax === undefined ? {} : { maxEntries: options.paymentRecordsMax }),
      ...(options.paymentRecordShares === undefined ? {} : { shares: options.paymentRecordShares }),
    };
    // The settlement records first: the early book keeps an outcome as long as its record is unresolved.
    const pending = createPendingSettlements({ dir, journal, now, ...bound });
    const unresolved = (key: string): boolean => {
      const record = pending.get(key);
      return record !== undefined && unresolvedEarly(record);
    };
    return {
      replayGuard: createReplayGuard({ dir, journal }),
      earlyStore: createEarlyAnswerStore({ dir, journal, now, unresolved }),
      pending,
      paidAnswers: createPaidAnswerStore({ dir, journal, ...bound }),
    };
  }
  return {
    replayGuard: createPgReplayGuard({ db, claimLeaseMs: options.settleTimeoutMs + CLAIM_LEASE_MARGIN_MS }),
    pending: createPgPendingSettlements({ db }),
    paidAnswers: createPgPaidAnswerStore({ db }),
    earlyStore: createPgEarlyAnswerStore({ db }),
  };
}

/** The kill switch of `storage`: the file under the data dir, or the row every instance follows. */
export function openKillSwitch(storage: Storage, dataDir: string, ledger: Pick<Ledger, 'append'>): Promise<KillSwitch> {
  if (storage.database === null) return Promise.resolve(createKillSwitch({ dataDir, ledger }));
  return openPgKillSwitch({ db: storage.database, ledger });
}

/** The free preview's daily quota of `storage`: `<dataDir>/preview`, or the tables every instance shares. */
export function openPreviewQuotaOf(
  storage: Storage,
  options: Readonly<Pick<Config, 'dataDir' | 'previewClientsPerDay'>>,
  now: () => Date,
): Promise<PreviewQuota> {
  const maxClientsPerDay = options.previewClientsPerDay;
  if (storage.database === null) return Promise.resolve(openPreviewQuota({ dir: resolve(options.dataDir, 'preview'), maxClientsPerDay, now }));
  return openPgPreviewQuota({ db: storage.database, maxClientsPerDay, now });
}

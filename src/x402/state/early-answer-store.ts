/**
 * What must outlive a restart about early answers (early-answers.ts), beside the pending
 * settlement records that already hold each early answer from before its broadcast: the outcome
 * of each (confirmed, or failed with what failed), and the payers barred from early answers
 * after a failure, with the time their bar ends. Files: one durable record log under the replay
 * directory; PostgreSQL: pg-early-answer-store.ts.
 */
import type { CommitJournal } from '../../durable/commit-journal.ts';
import { createDurableRecordLog } from './durable-record-log.ts';
import { PENDING_SETTLEMENT_TTL_MS } from './pending-settlements.ts';

const FILE = 'early-answers.log';
/** Outcomes and bars held at most in the file log; an outcome is small, and a bar one line per payer. */
export const EARLY_RECORDS_MAX = 100_000;

/** A payment that failed after its early answer left: what the answer was, and why it failed. */
export interface EarlyFailure {
  readonly status: 'failed';
  readonly network: string;
  readonly transaction: string;
  readonly payer: string;
  readonly endpoint: string;
  readonly priceUsdcUnits: number;
  /** SHA-256 of the answer's receipt (null when the answer went out without one), and its ledger index. */
  readonly receiptSha256: string | null;
  readonly ledgerIndex: number | null;
  readonly reason: string;
  readonly message: string;
  readonly failedAt: number;
}

/** Where an early answer's payment ended. */
export type EarlyOutcome = { readonly status: 'confirmed' } | EarlyFailure;

export interface EarlyAnswerStore {
  outcome(key: string): Promise<EarlyOutcome | undefined>;
  /** Resolves once the outcome is durable; kept as long as the settlement record. */
  settle(key: string, outcome: EarlyOutcome): Promise<void>;
  /** When the payer's bar ends (ms since the epoch), or 0 when it has none. */
  barredUntil(payer: string): Promise<number>;
  /** Resolves once the bar is durable. */
  bar(payer: string, untilMs: number): Promise<void>;
}

type Row = EarlyOutcome | { readonly status: 'barred'; readonly untilMs: number };

/** Opens the file store under `dir` (the replay record's directory). */
export function createEarlyAnswerStore(config: { readonly dir: string; readonly now?: () => number; readonly journal?: CommitJournal }): EarlyAnswerStore {
  const now = config.now ?? Date.now;
  const log = createDurableRecordLog<Row>({
    dir: config.dir,
    file: FILE,
    maxEntries: EARLY_RECORDS_MAX,
    now,
    ...(config.journal ? { journal: config.journal } : {}),
  });
  return {
    outcome(key) {
      const row = log.get(`outcome:${key}`);
      return Promise.resolve(row && row.status !== 'barred' ? row : undefined);
    },
    settle: (key, outcome) => log.put(`outcome:${key}`, outcome, now() + PENDING_SETTLEMENT_TTL_MS),
    barredUntil(payer) {
      const row = log.get(`bar:${payer}`);
      return Promise.resolve(row?.status === 'barred' ? row.untilMs : 0);
    },
    bar: (payer, untilMs) => log.put(`bar:${payer}`, { status: 'barred', untilMs }, untilMs),
  };
}

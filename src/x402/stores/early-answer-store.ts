/**
 * The early answers' book on files (early-book.ts): its rows in one durable record log under the
 * replay directory (outcomes, bars, the day's losses, each payer's confirmed value per day),
 * written together in one commit of the data directory's journal when it has one. What is in
 * flight lives in this process (one instance per data directory); a restart takes it up again
 * from the pending settlement records. PostgreSQL: pg-early-answer-store.ts.
 */
import type { CommitJournal } from '../../durable/commit-journal.ts';
import { commitStaged } from '../../durable/staged-write.ts';
import { createDurableRecordLog } from './durable-record-log.ts';
import { createInstanceBook, type EarlyAnswerStore, type EarlyRow } from './early-book.ts';
import { PENDING_SETTLEMENT_TTL_MS } from './pending-settlements.ts';

export type { EarlyAnswerStore, EarlyFailure, EarlyOutcome } from './early-book.ts';

const FILE = 'early-answers.log';
/**
 * Rows held at once before `full()` would say so (never a reason to drop one: outcomes live ten
 * minutes, losses a day, bars their bar time, a payer's confirmed value 30 days).
 */
export const EARLY_RECORDS_MAX = 100_000;

const OUTCOME = 'outcome:';

/** Opens the file store under `dir` (the replay record's directory). */
export function createEarlyAnswerStore(config: {
  readonly dir: string;
  readonly now?: () => number;
  readonly journal?: CommitJournal;
  /**
   * Whether the settlement record of `key` is an unresolved early answer (pending-settlements.ts
   * `unresolvedEarly`; that store opened first). Its outcome row is then kept past its ten minutes:
   * a stop between the outcome and the record's `ended` mark (early-ends.ts) longer than the row's
   * life would otherwise have the next start follow the answer again, a second loss or a second
   * credit of its payer's confirmed value (docs/security.md).
   */
  readonly unresolved?: (key: string) => boolean;
}): EarlyAnswerStore {
  const now = config.now ?? Date.now;
  const { unresolved } = config;
  const log = createDurableRecordLog<EarlyRow>({
    dir: config.dir,
    file: FILE,
    maxEntries: EARLY_RECORDS_MAX,
    now,
    ...(unresolved
      ? { keep: { holds: (_: EarlyRow, key: string) => key.startsWith(OUTCOME) && unresolved(key.slice(OUTCOME.length)), forMs: PENDING_SETTLEMENT_TTL_MS } }
      : {}),
    ...(config.journal ? { journal: config.journal } : {}),
  });
  const journal = config.journal ?? null;
  return createInstanceBook({
    rows: {
      get: (key) => log.get(key),
      entries: () => log.entries(),
      putAll: (rows, options) =>
        commitStaged(
          rows.map((r) => log.stage(r.key, r.row, r.expiresAt)),
          { journal, unhurried: options?.unhurried === true },
        ),
    },
  });
}

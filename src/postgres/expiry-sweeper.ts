/**
 * Deletes the dead rows of the expiring tables (docs/scaling.md#schema): a row whose `expires_at`
 * has passed is already read as absent, so the sweep only keeps the tables as small as what is
 * live. Every instance sweeps; a sweep that finds the database away is simply the next one's job.
 */
import type { PgQuery } from './pg-client.ts';

/** The tables whose rows carry `expires_at` (ms since the epoch). */
export const EXPIRING_TABLES = [
  'replay_keys',
  'pending_settlements',
  'paid_answers',
  'channels',
  'early_answers',
  'early_exposure',
  'early_losses',
  'early_trust',
] as const;
/**
 * Rows past their expiry that are still money state, never swept: an early answer delivered whose
 * outcome is not yet written (its pending record, and its share of the exposure while that record
 * stands), which the next start follows however late it comes.
 */
export const unresolvedEarlySql = (alias = ''): string =>
  `(${alias}record->>'early' is not null and ${alias}record->'early'->>'ended' is null and ${alias}delivered is not null)`;
/** The same for a share of `early_exposure` (named `table`): its answer's record still unresolved. */
export const heldShareSql = (table: string): string =>
  `exists (select 1 from pending_settlements p where p.key = ${table}.key and ${unresolvedEarlySql('p.')})`;
/**
 * The same for an early answer's outcome row (`early_answers`, key `outcome:<record key>`, the
 * record's key given as `recordKey`): kept while its record is unresolved, so a stop between the
 * outcome and the record's `ended` mark, however long, never has the answer followed twice.
 */
export const keptOutcomeSql = (recordKey: string): string =>
  `exists (select 1 from pending_settlements p where p.key = ${recordKey} and ${unresolvedEarlySql('p.')})`;
const SPARED: Partial<Record<(typeof EXPIRING_TABLES)[number], string>> = {
  pending_settlements: unresolvedEarlySql(),
  early_exposure: heldShareSql('early_exposure'),
  early_answers: `(early_answers.key like 'outcome:%' and ${keptOutcomeSql('substr(early_answers.key, 9)')})`,
};
/** Time between sweeps. */
export const SWEEP_INTERVAL_MS = 60_000;

export interface ExpirySweeper {
  /** Sweeps now; resolves with the rows deleted per table. */
  sweep(): Promise<Record<string, number>>;
  close(): void;
}

/** Sweeps at start and every `intervalMs`. */
export function startExpirySweeper(config: { readonly db: PgQuery; readonly intervalMs?: number; readonly now?: () => number }): ExpirySweeper {
  const now = config.now ?? Date.now;
  async function sweep(): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    for (const table of EXPIRING_TABLES) {
      const spared = SPARED[table] ? ` and not ${SPARED[table]}` : '';
      const rows = await config.db.query(`delete from ${table} where expires_at <= $1${spared} returning 1`, [now()]);
      deleted[table] = rows.length;
    }
    return deleted;
  }
  const quietly = (): void => void sweep().catch(() => undefined);
  quietly();
  const timer = setInterval(quietly, config.intervalMs ?? SWEEP_INTERVAL_MS);
  timer.unref();
  return { sweep, close: () => clearInterval(timer) };
}

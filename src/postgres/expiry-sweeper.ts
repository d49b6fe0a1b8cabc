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
      const rows = await config.db.query(`delete from ${table} where expires_at <= $1 returning 1`, [now()]);
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

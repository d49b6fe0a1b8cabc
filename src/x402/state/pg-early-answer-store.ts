/**
 * The early answers' outcomes and bars in PostgreSQL, shared by every instance (the file store's
 * twin, early-answer-store.ts): one row of `early_answers` per outcome or barred payer, committed
 * before the promise resolves. A row past its expiry reads as absent; the sweep deletes it.
 */
import type { PgQuery } from '../../postgres/pg-client.ts';
import type { EarlyAnswerStore, EarlyOutcome } from './early-answer-store.ts';
import { PENDING_SETTLEMENT_TTL_MS } from './pending-settlements.ts';

const GET = 'select record from early_answers where key = $1 and expires_at > $2';
const PUT = `insert into early_answers (key, record, expires_at) values ($1, $2::json, $3)
  on conflict (key) do update set record = excluded.record, expires_at = excluded.expires_at`;

/** The store over `db` (its schema migrated: postgres/migrate.ts). */
export function createPgEarlyAnswerStore(config: { readonly db: PgQuery; readonly now?: () => number }): EarlyAnswerStore {
  const now = config.now ?? Date.now;
  const { db } = config;
  async function get<T>(key: string): Promise<T | undefined> {
    const [row] = await db.query<{ record: T }>(GET, [key, now()]);
    return row?.record;
  }
  return {
    outcome: (key) => get<EarlyOutcome>(`outcome:${key}`),
    async settle(key, outcome) {
      await db.query(PUT, [`outcome:${key}`, JSON.stringify(outcome), now() + PENDING_SETTLEMENT_TTL_MS]);
    },
    async barredUntil(payer) {
      return (await get<{ untilMs: number }>(`bar:${payer}`))?.untilMs ?? 0;
    },
    async bar(payer, untilMs) {
      // A later bar never shortens one already in place.
      const until = Math.max(untilMs, (await get<{ untilMs: number }>(`bar:${payer}`))?.untilMs ?? 0);
      await db.query(PUT, [`bar:${payer}`, JSON.stringify({ untilMs: until }), until]);
    },
  };
}

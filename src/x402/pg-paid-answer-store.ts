/**
 * The durable half of the x402 `payment-identifier` extension in PostgreSQL, shared by every
 * instance (docs/scaling.md#schema): one row of `paid_answers` per id, with the fingerprint of the
 * payment and resource that bought it, committed before the 200 leaves. The same id and payload
 * get the same answer on any instance; the same id with another payload gets 409.
 */
import type { PgQuery } from '../store/pg-client.ts';
import { IDEMPOTENCY_TTL_MS } from './idempotency-cache.ts';
import { lookupOf, type PaidAnswerStore, type StoredPaidAnswer } from './paid-answer-store.ts';
import { storableAnswer, type StoredAnswer } from './pending-settlements.ts';

export interface PgPaidAnswerStoreConfig {
  readonly db: PgQuery;
  readonly ttlMs?: number;
  readonly now?: () => number;
}

const LOOKUP = 'select fingerprint, answer from paid_answers where id = $1 and expires_at > $2';
// The first answer stays: a second instance answering the same id at the same moment keeps it.
const REMEMBER = `insert into paid_answers (id, fingerprint, answer, expires_at) values ($1, $2, $3::json, $4)
  on conflict (id) do update set fingerprint = excluded.fingerprint, answer = excluded.answer, expires_at = excluded.expires_at
  where paid_answers.expires_at <= $5`;

/** The store over `db` (its schema migrated: store/migrate.ts). */
export function createPgPaidAnswerStore(config: PgPaidAnswerStoreConfig): PaidAnswerStore {
  const ttlMs = config.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const now = config.now ?? Date.now;
  const { db } = config;
  return {
    async lookup(id, fingerprint) {
      const [row] = await db.query<{ fingerprint: string; answer: StoredAnswer }>(LOOKUP, [id, now()]);
      const stored: StoredPaidAnswer | undefined = row ? { fingerprint: row.fingerprint, answer: row.answer } : undefined;
      return lookupOf(stored, fingerprint);
    },
    async remember(id, fingerprint, reply) {
      const t = now();
      await db.query(REMEMBER, [id, fingerprint, JSON.stringify(storableAnswer(reply)), t + ttlMs, t]);
    },
  };
}

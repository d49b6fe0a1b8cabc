/**
 * The durable half of the x402 `payment-identifier` extension in PostgreSQL, shared by every
 * instance (docs/scaling.md#schema): one row of `paid_answers` per id, with the fingerprint of the
 * payment and resource that bought it, committed before the 200 leaves. The same id and payload
 * get the same answer on any instance; the same id with another payload gets 409.
 *
 * The id is claimed before its payment is processed: a row without an answer, inserted by one
 * statement that at most one of any number of instances wins (`on conflict`), with the lease of a
 * replay-guard claim. Two different payments under one id sent to two instances at once are then
 * one charge and one 409, as on a single instance; the claim of a crashed instance frees itself.
 */
import type { HttpReply } from '../../errors.ts';
import type { PgQuery } from '../../postgres/pg-client.ts';
import { IDEMPOTENCY_TTL_MS } from './idempotency-cache.ts';
import { type IdClaim, lookupOf, type PaidAnswerLookup, type PaidAnswerStore } from './paid-answer-store.ts';
import { storableAnswer, type StoredAnswer } from './pending-settlements.ts';

/** How long an id's claim holds without an answer or a release (as long as a replay-guard claim). */
export const ID_CLAIM_LEASE_MS = 120_000;
/** A claim lost between its insert and the read of the row that beat it is asked again this often. */
const CLAIM_ATTEMPTS = 3;

export interface PgPaidAnswerStoreConfig {
  readonly db: PgQuery;
  readonly ttlMs?: number;
  readonly claimLeaseMs?: number;
  readonly now?: () => number;
}

type Row = { fingerprint: string; answer: StoredAnswer | null };

const LOOKUP = 'select fingerprint, answer from paid_answers where id = $1 and expires_at > $2';
// Takes the id, or a row whose time is up; says whether it did.
const CLAIM = `insert into paid_answers (id, fingerprint, answer, expires_at) values ($1, $2, null, $3)
  on conflict (id) do update set fingerprint = excluded.fingerprint, answer = null, expires_at = excluded.expires_at
  where paid_answers.expires_at <= $4
  returning 1 as mine`;
// The answer fills the claim of the same payment; the first answer stays while it lives.
const REMEMBER = `insert into paid_answers (id, fingerprint, answer, expires_at) values ($1, $2, $3::json, $4)
  on conflict (id) do update set fingerprint = excluded.fingerprint, answer = excluded.answer, expires_at = excluded.expires_at
  where paid_answers.expires_at <= $5 or (paid_answers.fingerprint = excluded.fingerprint and paid_answers.answer is null)`;
const RELEASE = 'delete from paid_answers where id = $1 and fingerprint = $2 and answer is null';

/** A row compared with `fingerprint`: an unanswered claim of the same payment is no answer yet. */
function lookupRow(row: Row | undefined, fingerprint: string): PaidAnswerLookup {
  if (row && row.answer === null) return row.fingerprint === fingerprint ? { kind: 'miss' } : { kind: 'conflict' };
  return lookupOf(row ? { fingerprint: row.fingerprint, answer: row.answer! } : undefined, fingerprint);
}

/** The store over `db` (its schema migrated: postgres/migrate.ts). */
export function createPgPaidAnswerStore(config: PgPaidAnswerStoreConfig): PaidAnswerStore {
  const ttlMs = config.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const leaseMs = config.claimLeaseMs ?? ID_CLAIM_LEASE_MS;
  const now = config.now ?? Date.now;
  const { db } = config;
  const rememberValues = (id: string, fingerprint: string, reply: HttpReply) => {
    const t = now();
    return [id, fingerprint, JSON.stringify(storableAnswer(reply)), t + ttlMs, t];
  };
  const read = async (id: string): Promise<Row | undefined> => (await db.query<Row>(LOOKUP, [id, now()]))[0];
  return {
    async lookup(id, fingerprint) {
      return lookupRow(await read(id), fingerprint);
    },
    async claim(id, fingerprint): Promise<IdClaim> {
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        const t = now();
        const [mine] = await db.query(CLAIM, [id, fingerprint, t + leaseMs, t]);
        if (mine) return { kind: 'acquired' };
        // A new statement, a new snapshot: the row that beat this claim is visible now.
        const row = await read(id);
        if (row?.answer === null) return row.fingerprint === fingerprint ? { kind: 'busy' } : { kind: 'conflict' };
        if (row) return lookupRow(row, fingerprint);
      }
      return { kind: 'busy' };
    },
    remember: (id, fingerprint, reply) => db.query(REMEMBER, rememberValues(id, fingerprint, reply)).then(() => undefined),
    // Pure; no row count expected: an id another payment holds keeps its answer (the claim made that one 409).
    stageRemember(id, fingerprint, reply) {
      const values = rememberValues(id, fingerprint, reply);
      return { sql: { text: REMEMBER, values }, commitAlone: () => db.query(REMEMBER, values).then(() => undefined), settle: () => undefined };
    },
    async release(id, fingerprint) {
      await db.query(RELEASE, [id, fingerprint]);
    },
  };
}

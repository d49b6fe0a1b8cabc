/**
 * Pending settlements in PostgreSQL, shared by every instance (docs/scaling.md#schema): one row
 * of `pending_settlements` per settlement, written (committed, so durable with synchronous_commit
 * on) before its payment can reach the chain, then the 200 as sent in `delivered`, for the
 * identical retry, wherever it lands. A row past its expiry reads as absent; the sweep deletes it.
 * No count bound as in the file log: rows cost the database's disk, not the instance's memory.
 */
import type { HttpReply } from '../../errors.ts';
import type { PgQuery } from '../../postgres/pg-client.ts';
import {
  noRecordToKeep,
  PENDING_SETTLEMENT_TTL_MS,
  type PendingSettlement,
  type PendingSettlements,
  storableAnswer,
  type StoredAnswer,
} from './pending-settlements.ts';

export interface PgPendingSettlementsConfig {
  readonly db: PgQuery;
  readonly ttlMs?: number;
  readonly now?: () => number;
}

const GET = 'select record, delivered from pending_settlements where key = $1 and expires_at > $2';
const RECORD = `insert into pending_settlements (key, record, delivered, expires_at) values ($1, $2::json, null, $3)
  on conflict (key) do update set record = excluded.record, delivered = null, expires_at = excluded.expires_at`;
// An early answer delivered and not yet ended is listed whatever its age (the sweep spares it: UNRESOLVED_EARLY).
const LIST_EARLY = `select key, record, delivered from pending_settlements
  where record->>'early' is not null and record->'early'->>'ended' is null and (expires_at > $1 or delivered is not null)`;
const ENDED = `update pending_settlements set record = jsonb_set(record::jsonb, '{early,ended}', 'true')::json, expires_at = greatest(expires_at, $2)
  where key = $1 and record->>'early' is not null`;
const RESOLVE = 'delete from pending_settlements where key = $1';
const KEEP_DELIVERED = 'update pending_settlements set delivered = $2::json, expires_at = $3 where key = $1 and expires_at > $4 returning 1';

/** The store over `db` (its schema migrated: postgres/migrate.ts). */
export function createPgPendingSettlements(config: PgPendingSettlementsConfig): PendingSettlements {
  const ttlMs = config.ttlMs ?? PENDING_SETTLEMENT_TTL_MS;
  const now = config.now ?? Date.now;
  const { db } = config;
  // The delivered answer has its own column: a record is written before anything was delivered.
  const recordValues = (key: string, pending: PendingSettlement): [string, string, number] => {
    const { delivered: _, ...record } = pending;
    return [key, JSON.stringify(record), now() + ttlMs];
  };
  const keepDelivered = async (key: string, reply: HttpReply): Promise<void> => {
    const t = now();
    const rows = await db.query(KEEP_DELIVERED, [key, JSON.stringify(storableAnswer(reply)), t + ttlMs, t]);
    if (rows.length === 0) throw noRecordToKeep(key);
  };
  return {
    async get(key) {
      const [row] = await db.query<{ record: PendingSettlement; delivered: StoredAnswer | null }>(GET, [key, now()]);
      if (!row) return undefined;
      return row.delivered ? { ...row.record, delivered: row.delivered } : row.record;
    },
    async record(key, pending) {
      await db.query(RECORD, recordValues(key, pending));
    },
    // Pure: the statement runs in the transaction it is handed to (an early answer's admission).
    stageRecord(key, pending) {
      const values = recordValues(key, pending);
      return { sql: { text: RECORD, values }, commitAlone: async () => void (await db.query(RECORD, values)), settle: () => undefined };
    },
    async listEarly() {
      const rows = await db.query<{ key: string; record: PendingSettlement; delivered: StoredAnswer | null }>(LIST_EARLY, [now()]);
      return rows.map((r): [string, PendingSettlement] => [r.key, r.delivered ? { ...r.record, delivered: r.delivered } : r.record]);
    },
    async ended(key) {
      await db.query(ENDED, [key, now() + ttlMs]);
    },
    async resolve(key) {
      await db.query(RESOLVE, [key]);
    },
    keepDelivered,
    // Pure: the record's absence shows when the statement runs (no row touched: noRecordToKeep).
    stageDelivered(key, reply) {
      const t = now();
      const sql = {
        text: KEEP_DELIVERED,
        values: [key, JSON.stringify(storableAnswer(reply)), t + ttlMs, t],
        expectRows: 1,
        conflict: () => noRecordToKeep(key),
      };
      return { sql, commitAlone: () => keepDelivered(key, reply), settle: () => undefined };
    },
  };
}

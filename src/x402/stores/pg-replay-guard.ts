/**
 * The replay guard in PostgreSQL, shared by every instance (docs/scaling.md#schema): a claim is a
 * row of `replay_keys` with a unique key, so of N requests on N instances claiming one payment at
 * once, the database lets exactly one INSERT through (ON CONFLICT DO NOTHING decides); release
 * deletes the claim; markSettled turns the row into a settled one with its expiry, refused until
 * then. A claim has a lease (`claimLeaseMs`, longer than any paid call may take): the claim of an
 * instance that crashed mid-call frees itself, where the file guard's claims died with the process.
 */
import type { PgQuery } from '../../postgres/pg-client.ts';
import { type AcquireResult, REPLAY_KEY_TTL_MS, type ReplayGuard } from './replay-guard.ts';

/** Time a claim is held beyond the settlement time-out before another request may take it over. */
export const CLAIM_LEASE_MARGIN_MS = 90_000;

export interface PgReplayGuardConfig {
  readonly db: PgQuery;
  /** How long a settled key is refused. */
  readonly ttlMs?: number;
  /** How long a claim holds without release or settlement (default: 30 s of settlement plus the margin). */
  readonly claimLeaseMs?: number;
  readonly now?: () => number;
}

/**
 * One statement: claim the key, or take over a row whose time is up (a claim whose lease ended or
 * a settled key past its expiry), else report what holds it. A row committed by a concurrent
 * claimer after this statement's snapshot is not seen by the outer SELECT: null, read as in flight.
 */
const ACQUIRE = `with claimed as (
  insert into replay_keys (key, state, expires_at) values ($1, 'claimed', $2)
  on conflict (key) do update set state = 'claimed', expires_at = excluded.expires_at where replay_keys.expires_at <= $3
  returning 1
)
select case when exists (select 1 from claimed) then 'acquired' else (select state from replay_keys where key = $1) end as result`;

const RELEASE = `delete from replay_keys where key = $1 and state = 'claimed'`;

const MARK_SETTLED = `insert into replay_keys (key, state, expires_at) values ($1, 'settled', $2)
  on conflict (key) do update set state = 'settled', expires_at = excluded.expires_at`;

/** The guard over `db` (its schema migrated: postgres/migrate.ts). */
export function createPgReplayGuard(config: PgReplayGuardConfig): ReplayGuard {
  const ttlMs = config.ttlMs ?? REPLAY_KEY_TTL_MS;
  const leaseMs = config.claimLeaseMs ?? 30_000 + CLAIM_LEASE_MARGIN_MS;
  const now = config.now ?? Date.now;
  const { db } = config;
  return {
    dir: null,
    async acquire(key): Promise<AcquireResult> {
      const t = now();
      const [row] = await db.query<{ result: string | null }>(ACQUIRE, [key, t + leaseMs, t]);
      if (row?.result === 'acquired') return 'acquired';
      return row?.result === 'settled' ? 'settled' : 'in_flight';
    },
    async release(key) {
      await db.query(RELEASE, [key]);
    },
    async markSettled(key) {
      await db.query(MARK_SETTLED, [key, now() + ttlMs]);
    },
    // Pure (an upsert run in the paid call's ledger transaction, or alone): nothing to undo.
    stageSettled(key) {
      const values = [key, now() + ttlMs];
      return { sql: { text: MARK_SETTLED, values }, commitAlone: () => db.query(MARK_SETTLED, values).then(() => undefined), settle: () => undefined };
    },
    // The connection pool is the storage's to close (service/storage.ts).
    close: () => Promise.resolve(),
  };
}

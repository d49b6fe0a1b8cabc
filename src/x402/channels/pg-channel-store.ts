/**
 * The channel records in PostgreSQL, shared by every instance on the database
 * (docs/scaling.md#schema): one row per channel, written with the revision it was read at, so
 * a voucher two instances accept at once for one channel is charged by one of them and refused by
 * the other (`ChannelConflictError`), never both. A paid call's charge and kept answer are staged
 * (`stage`) to run in its ledger entry's transaction. Also the lease by which one instance at a time
 * claims and sweeps.
 */
import type { PgQuery, SqlParam } from '../../postgres/pg-client.ts';
import { CHANNEL_RECORD_TTL_MS, ChannelConflictError, type ChannelRecord, type ChannelStore, unclaimedOf } from './channel-store.ts';

type Row = { channel_id: string; record: ChannelRecord; rev: string };

const GET = 'select record, rev from channels where channel_id = $1 and expires_at > $2';
// A new channel, or a dead row replaced; nothing when another instance stored it first.
const INSERT = `insert into channels (channel_id, record, rev, unclaimed, withdrawing, expires_at) values ($1, $2::json, 1, $3, $4, $5)
  on conflict (channel_id) do update set record = excluded.record, rev = 1, unclaimed = excluded.unclaimed, withdrawing = excluded.withdrawing, expires_at = excluded.expires_at
  where channels.expires_at <= $6
  returning 1 as done`;
const UPDATE = `update channels set record = $2::json, rev = rev + 1, unclaimed = $4, withdrawing = $5, expires_at = $6
  where channel_id = $1 and rev = $3 returning 1 as done`;
const REMOVE = 'delete from channels where channel_id = $1 and rev = $2 returning 1 as done';
const OWING = 'select channel_id, record, rev from channels where unclaimed > 0 and expires_at > $1 order by channel_id limit $2';
const SUMMARY = `select count(*)::int as open, coalesce(sum(unclaimed), 0)::text as unclaimed, (count(*) filter (where withdrawing))::int as withdrawing
  from channels where expires_at > $1`;
const LEASE = `insert into channel_claim_lease (id, holder, until) values (1, $1, $2)
  on conflict (id) do update set holder = excluded.holder, until = excluded.until
  where channel_claim_lease.holder = $1 or channel_claim_lease.until <= $3
  returning 1 as mine`;

/** The statement that stores `record` as revision `record.rev + 1`: it touches one row, or none when that revision is not the stored one. */
function writeOf(id: string, record: ChannelRecord, t: number): { text: string; values: SqlParam[] } {
  const stored = JSON.stringify({ ...record, rev: record.rev + 1 });
  const derived = [unclaimedOf(record).toString(), record.onchain.withdrawRequestedAt !== 0, t + CHANNEL_RECORD_TTL_MS] as const;
  return record.rev === 0 ? { text: INSERT, values: [id, stored, ...derived, t] } : { text: UPDATE, values: [id, stored, String(record.rev), ...derived] };
}

const withRev = (row: { record: ChannelRecord; rev: string }): ChannelRecord => ({ ...row.record, rev: Number(row.rev) });

/** The store over `db` (its schema migrated: postgres/migrate.ts). */
export function createPgChannelStore(config: { readonly db: PgQuery; readonly now?: () => number }): ChannelStore {
  const { db } = config;
  const now = config.now ?? Date.now;
  const put = async (id: string, record: ChannelRecord): Promise<void> => {
    const { text, values } = writeOf(id, record, now());
    if ((await db.query(text, values)).length === 0) throw new ChannelConflictError(id);
  };
  return {
    async get(id) {
      const row = (await db.query<Row>(GET, [id, now()]))[0];
      return row ? withRev(row) : undefined;
    },
    put,
    // Pure: nothing moves until the statement runs (in the ledger batch's transaction, or alone),
    // so a batch run again after a fault runs it again; the row's revision decides who charged.
    stage(id, record) {
      const sql = { ...writeOf(id, record, now()), expectRows: 1, conflict: () => new ChannelConflictError(id) };
      return [{ sql, commitAlone: () => put(id, record), settle: () => undefined }];
    },
    async remove(id, record) {
      if ((await db.query(REMOVE, [id, String(record.rev)])).length === 0) throw new ChannelConflictError(id);
    },
    async owing(limit) {
      const rows = await db.query<Row>(OWING, [now(), limit]);
      return rows.map((r) => [r.channel_id, withRev(r)]);
    },
    // Rows keep their answers on disk, not in memory; they go with the row's expiry.
    idleAnswers: () => [],
    async summary() {
      const [row] = await db.query<{ open: number; unclaimed: string; withdrawing: number }>(SUMMARY, [now()]);
      return { open: row?.open ?? 0, unclaimedUnits: row?.unclaimed ?? '0', withdrawalsPending: row?.withdrawing ?? 0 };
    },
    flush: () => Promise.resolve(),
  };
}

/**
 * Whether `holder` may claim now: it takes or renews the lease for `leaseMs`. Instances that
 * share the database take turns this way; a look that cannot reach the database does not claim.
 */
export function createPgClaimLease(config: { readonly db: PgQuery; readonly holder: string; readonly leaseMs: number; readonly now?: () => number }) {
  const now = config.now ?? Date.now;
  return async (): Promise<boolean> => {
    const t = now();
    const rows = await config.db.query(LEASE, [config.holder, t + config.leaseMs, t]).catch(() => []);
    return rows.length > 0;
  };
}

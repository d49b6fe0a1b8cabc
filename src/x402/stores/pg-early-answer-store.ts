/**
 * The early answers' book in PostgreSQL, shared by every instance on the database (the file
 * book's twin, early-book.ts): outcomes and bars in `early_answers`, the answers in flight in
 * `early_exposure`, the day's losses in `early_losses`, each payer's confirmed value per day in
 * `early_trust` (migrations 0006 and 0007). An admission runs under one advisory lock: it reads
 * the totals after taking it (so it sees every admission and loss committed before), decides with
 * the same bounds as one instance (early-bounds.ts), and inserts its row in the same transaction
 * as the settlement's pending record, so the deployment has one global exposure and one budget.
 * Outcomes are recorded once per payment, whichever instance follows it to its end.
 */
import type { StagedWrite } from '../../durable/staged-write.ts';
import { heldShareSql, keptOutcomeSql } from '../../postgres/expiry-sweeper.ts';
import type { PgClient, PgQuery } from '../../postgres/pg-client.ts';
import {
  DAY_MS,
  dayOf,
  earlyVerdict,
  type EarlyShare,
  type EarlyTotals,
  handOffCovered,
  LOSS_WINDOW_MS,
  TRUST_WINDOW_DAYS,
  trustSince,
} from './early-bounds.ts';
import type { EarlyAnswerStore, EarlyBookStatus, EarlyOutcome } from './early-book.ts';
import { PENDING_SETTLEMENT_TTL_MS } from './pending-settlements.ts';

/** Key of the advisory lock early admissions and losses hold (any constant the service uses for nothing else). */
export const EARLY_LOCK_KEY = 0x65617231; // 'ear1'
/** How old /health's totals may be before a read of the database refreshes them. */
export const STATUS_REFRESH_MS = 1_000;

const GET = 'select record from early_answers where key = $1 and expires_at > $2';
// An outcome is read past its life while its record is unresolved (the sweep spares it likewise).
const OUTCOME = `select record from early_answers where key = 'outcome:' || $1::text and (expires_at > $2::bigint or ${keptOutcomeSql('$1::text')})`;
// A share counts while it lasts, or past that while its answer's outcome is unknown (its record unresolved).
const LIVE = `(expires_at > $1::bigint or ${heldShareSql('early_exposure')})`;
const LIVE_P = LIVE.replace('$1', '$2');
const EXPOSURE = `select coalesce(sum(units), 0) as u, coalesce(sum(units + fee_units), 0) as r,
  coalesce(sum(units) filter (where not trusted), 0) as nu, coalesce(sum(units + fee_units) filter (where not trusted), 0) as nr,
  count(distinct payer) as payers from early_exposure where ${LIVE}`;
const LOSSES = 'select coalesce(sum(units), 0) as l, coalesce(sum(units) filter (where new_payer), 0) as nl from early_losses where at_ms > $2::bigint';
const TOTALS = `select * from (${EXPOSURE}) e, (${LOSSES}) l`;
const PAYER = `select (select coalesce(sum(units), 0) from early_exposure where payer = $1::text and ${LIVE_P}) as units,
  (select count(*) from early_exposure where payer = $1::text and ${LIVE_P}) as count,
  (select coalesce(sum(units), 0) from early_trust where payer = $1::text and day >= $3::bigint) as trust,
  (select (record->>'untilMs')::bigint from early_answers where key = 'bar:' || $1::text and expires_at > $2::bigint) as barred`;
const INSERT_SHARE = `insert into early_exposure (key, payer, units, fee_units, trusted, expires_at) values ($1::text, $2::text, $3::bigint, $4::bigint, $5::boolean, $6::bigint)
  on conflict (key) do nothing`;
const RELEASE = 'delete from early_exposure where key = $1';
const CREDIT = `insert into early_trust (payer, day, units, expires_at) values ($1, $2, $3, $4)
  on conflict (payer, day) do update set units = early_trust.units + excluded.units, expires_at = greatest(early_trust.expires_at, excluded.expires_at)`;
// Released, the outcome recorded, and (only by the one that recorded it) the payer credited.
const CONFIRMED = `with gone as (delete from early_exposure where key = $1::text),
  o as (insert into early_answers (key, record, expires_at) values ('outcome:' || $1::text, '{"status":"confirmed"}', $2::bigint)
    on conflict (key) do nothing returning 1)
  insert into early_trust (payer, day, units, expires_at) select $3::text, $4::bigint, $5::bigint, $6::bigint from o
  on conflict (payer, day) do update set units = early_trust.units + excluded.units, expires_at = greatest(early_trust.expires_at, excluded.expires_at)`;
const DAY_LOSSES = 'select coalesce(sum(units), 0) as l from early_losses where at_ms > $1';
// Released, and (only by the one that records the outcome) the loss counted, the bar set (never
// shortened) and, when barred, the payer's confirmed history forfeited (early-book.ts says why).
const FAILED = `with gone as (delete from early_exposure where key = $1::text),
  o as (insert into early_answers (key, record, expires_at) values ('outcome:' || $1::text, $2::json, $3::bigint) on conflict (key) do nothing returning 1),
  l as (insert into early_losses (key, units, new_payer, at_ms, expires_at) select $1::text, $4::bigint, $5::boolean, $6::bigint, $7::bigint from o
    on conflict (key) do nothing),
  b as (insert into early_answers (key, record, expires_at) select 'bar:' || $8::text, json_build_object('untilMs', $9::bigint), $9::bigint from o
    on conflict (key) do update set record = json_build_object('untilMs', greatest((early_answers.record->>'untilMs')::bigint, $9::bigint)),
    expires_at = greatest(early_answers.expires_at, $9::bigint)),
  t as (delete from early_trust where payer = $8::text and $9::bigint > 0 and exists (select 1 from o))
  select count(*)::int as recorded from o`;

type Num = string | number | null;
const num = (v: Num): number => Number(v ?? 0);

function totalsOf(row: Record<string, Num> | undefined): EarlyBookStatus {
  return {
    exposureUnits: num(row?.u ?? 0),
    exposureRisk: num(row?.r ?? 0),
    newExposureUnits: num(row?.nu ?? 0),
    newExposureRisk: num(row?.nr ?? 0),
    lossUnits: num(row?.l ?? 0),
    newLossUnits: num(row?.nl ?? 0),
    payersExposed: num(row?.payers ?? 0),
  };
}

/** Runs a staged write's statement in `tx`; a write without one is committed after the transaction. */
async function runStaged(tx: PgQuery, write: StagedWrite): Promise<boolean> {
  if (!write.sql) return false;
  const rows = await tx.query(write.sql.text, write.sql.values as never);
  if (write.sql.expectRows !== undefined && rows.length !== write.sql.expectRows) throw write.sql.conflict?.() ?? new Error('a staged write touched no row');
  return true;
}

/** The store over `db` (its schema migrated: postgres/migrate.ts). */
export function createPgEarlyAnswerStore(config: { readonly db: Pick<PgClient, 'query' | 'transaction'>; readonly now?: () => number }): EarlyAnswerStore {
  const now = config.now ?? Date.now;
  const { db } = config;
  let cached: { at: number; status: EarlyBookStatus } = { at: Number.NEGATIVE_INFINITY, status: totalsOf(undefined) };
  let reading: Promise<void> | null = null;

  async function get<T>(key: string): Promise<T | undefined> {
    const [row] = await db.query<{ record: T }>(GET, [key, now()]);
    return row?.record;
  }

  async function readTotals(q: PgQuery, t: number): Promise<EarlyBookStatus> {
    const [row] = await q.query<Record<string, Num>>(TOTALS, [t, t - LOSS_WINDOW_MS]);
    const status = totalsOf(row);
    cached = { at: t, status };
    return status;
  }

  async function decide(tx: PgQuery, ask: Omit<EarlyShare, 'trusted'>, limits: Parameters<EarlyAnswerStore['admit']>[1]) {
    await tx.query('select pg_advisory_xact_lock($1)', [EARLY_LOCK_KEY]);
    const [totals, [p]] = await Promise.all([readTotals(tx, ask.at), tx.query<Record<string, Num>>(PAYER, [ask.payer, ask.at, trustSince(ask.at)])]);
    const standing = { inFlightUnits: num(p?.units ?? 0), inFlightCount: num(p?.count ?? 0), trustUnits: num(p?.trust ?? 0), barredUntil: num(p?.barred ?? 0) };
    const share: EarlyShare = { ...ask, trusted: standing.trustUnits > 0 };
    return { share, handOff: handOffCovered(standing, share), refused: earlyVerdict(totals as EarlyTotals, standing, share, limits) };
  }

  /** Commits `write` on its own; when it fails, the share taken for `key` (if any) is given back. */
  async function commitAfter(write: StagedWrite, key: string | null): Promise<void> {
    try {
      await write.commitAlone();
      write.settle(null);
    } catch (err) {
      write.settle(err);
      if (key !== null) await db.query(RELEASE, [key]).catch(() => undefined);
      throw err;
    }
  }

  const insertShare = (q: PgQuery, s: EarlyShare) => q.query(INSERT_SHARE, [s.key, s.payer, s.units, s.feeUnits, s.trusted, s.at + PENDING_SETTLEMENT_TTL_MS]);

  return {
    scope: 'database',
    async admit(ask, limits, record) {
      const staged: { write: StagedWrite | null; inTx: boolean } = { write: null, inTx: false };
      let decided: Awaited<ReturnType<typeof decide>>;
      try {
        decided = await db.transaction(async (tx) => {
          const d = await decide(tx, ask, limits);
          if (d.refused === null) await insertShare(tx, d.share);
          // The record runs in this transaction: the answer's writes cannot join it (no hand-off commit).
          staged.write = record(d.refused === null ? d.share : null, false);
          staged.inTx = await runStaged(tx, staged.write);
          return d;
        });
      } catch (err) {
        staged.write?.settle(err);
        throw err;
      }
      const write = staged.write!;
      // A record that cannot ride in the transaction (a store of another kind) is written after it.
      if (!staged.inTx) await commitAfter(write, decided.refused === null ? ask.key : null);
      else write.settle(null);
      return decided.refused === null ? { share: decided.share, handOff: decided.handOff } : { refused: decided.refused };
    },
    async hold(share) {
      await insertShare(db, share);
    },
    async release(key) {
      await db.query(RELEASE, [key]);
    },
    async confirmed(share, at) {
      const expires = (dayOf(at) + TRUST_WINDOW_DAYS) * DAY_MS;
      await db.query(CONFIRMED, [share.key, at + PENDING_SETTLEMENT_TTL_MS, share.payer, dayOf(at), share.units, expires]);
    },
    async failed(share, failure, lossUnits, barUntil) {
      return db.transaction(async (tx) => {
        await tx.query('select pg_advisory_xact_lock($1)', [EARLY_LOCK_KEY]);
        const at = failure.failedAt;
        const [before] = await tx.query<Record<string, Num>>(DAY_LOSSES, [at - LOSS_WINDOW_MS]);
        const values = [
          share.key,
          JSON.stringify(failure),
          at + PENDING_SETTLEMENT_TTL_MS,
          lossUnits,
          !share.trusted,
          at,
          at + LOSS_WINDOW_MS,
          failure.payer,
          barUntil,
        ];
        const [r] = await tx.query<{ recorded: number }>(FAILED, values);
        if (!r?.recorded) return null;
        const b = num(before?.l ?? 0);
        return { before: b, after: b + lossUnits };
      });
    },
    async credit(payer, units, at) {
      await db.query(CREDIT, [payer, dayOf(at), units, (dayOf(at) + TRUST_WINDOW_DAYS) * DAY_MS]);
    },
    async outcome(key) {
      const [row] = await db.query<{ record: EarlyOutcome }>(OUTCOME, [key, now()]);
      return row?.record;
    },
    async barredUntil(payer) {
      return (await get<{ untilMs: number }>(`bar:${payer}`))?.untilMs ?? 0;
    },
    status(t) {
      // The last totals read; a read older than STATUS_REFRESH_MS starts a fresh one (shown next time).
      if (t - cached.at > STATUS_REFRESH_MS && !reading)
        reading = readTotals(db, t)
          .then(
            () => undefined,
            () => undefined,
          )
          .finally(() => {
            reading = null;
          });
      return cached.status;
    },
  };
}

/**
 * The free preview's daily quota in PostgreSQL, shared by every instance on the database
 * (docs/preview.md, docs/scaling.md#schema): a client behind a load balancer gets one preview a
 * day whichever instance answers. The salt of the client hashes is one row, so every instance
 * hashes a client alike; a claim is one row of `preview_claims` keyed by (day, client hash),
 * inserted by one statement that also moves the day's counter in `preview_days` under its row
 * lock, so the capacity is shared and exact.
 *
 * A claim is 'claimed' (with a lease: the claim of an instance that died mid-preview frees itself)
 * until its commit marks it 'used', which the 200 waits for; a release deletes it and gives its
 * place in the day back. Every database fault rejects with ServiceError `database_unavailable`:
 * a preview that could not be claimed or recorded is never answered.
 */
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors.ts';
import type { PgQuery } from '../postgres/pg-client.ts';
import { clientHasherOf, isSaltHex, newSaltHex } from './client-key.ts';
import { type ClaimResult, type HeldClaim, PREVIEW_CLIENTS_PER_DAY, type PreviewQuota, refusalAt, utcDayOf } from './preview-quota.ts';

/** How long a running preview holds its claim; far beyond any endpoint's upstream time-outs. */
export const PREVIEW_CLAIM_LEASE_MS = 300_000;
const DAY_MS = 86_400_000;

export interface PgPreviewQuotaConfig {
  readonly db: PgQuery;
  readonly maxClientsPerDay?: number;
  readonly now: () => Date;
  readonly leaseMs?: number;
}

/**
 * One statement: take a place in the day (the counter row is created by the day's first claim,
 * else moved up under its lock while below the capacity and this client has no row yet), then the
 * client's row, only with a place. The last select reports what the statement's snapshot saw.
 */
const CLAIM = `with slot as (
  insert into preview_days as d (day, clients) select $1::date, 1 where $5::int >= 1
  on conflict (day) do update set clients = d.clients + 1
  where d.clients < $5::int and not exists (select 1 from preview_claims c where c.day = $1::date and c.client_hash = $2::text)
  returning clients
), claimed as (
  insert into preview_claims (day, client_hash, state, owner, lease_until)
  select $1::date, $2::text, 'claimed', $3::text, $4::bigint from slot
  on conflict (day, client_hash) do nothing
  returning 1
)
select (select clients from slot) as slot, exists (select 1 from claimed) as claimed,
  c.state, c.lease_until, (select clients from preview_days where day = $1::date) as clients
from (select 1) as one left join preview_claims c on c.day = $1::date and c.client_hash = $2::text`;

/** A client row that lost a race with the same client elsewhere: its place goes back. */
const UNSLOT = 'update preview_days set clients = clients - 1 where day = $1::date and clients > 0';
/** Takes over a claim whose lease ran out (its place in the day is already counted). */
const TAKE_OVER = `update preview_claims set owner = $3, lease_until = $4
  where day = $1::date and client_hash = $2 and state = 'claimed' and lease_until <= $5 returning 1`;
const COMMIT = `update preview_claims set state = 'used' where day = $1::date and client_hash = $2 and owner = $3 and state = 'claimed' returning 1`;
const RELEASE = `with gone as (
  delete from preview_claims where day = $1::date and client_hash = $2 and owner = $3 and state = 'claimed' returning day
) update preview_days set clients = clients - 1 where day = $1::date and exists (select 1 from gone) returning clients`;
/** Days before yesterday are done on every instance (yesterday stays for clocks a little apart). */
const FORGET = 'with claims as (delete from preview_claims where day < $1::date) delete from preview_days where day < $1::date';
const COUNT = 'select clients from preview_days where day = $1::date';

type ClaimRow = { slot: number | null; claimed: boolean; state: string | null; lease_until: number | null; clients: number | null };

/** What a held claim needs of its quota: the database, run so /health sees its faults, and the count's keeper. */
interface ClaimContext {
  readonly db: PgQuery;
  run<R>(query: () => Promise<R>): Promise<R>;
  note(day: string, clients: number | null | undefined): void;
}

/** The claim of `hash` on `day` held by `owner` (this request): commit marks it used, release deletes it. */
function holdClaim(ctx: ClaimContext, day: string, hash: string, owner: string): HeldClaim {
  let ended = false;
  return {
    ok: true,
    async commit() {
      if (ended) throw new Error('preview claim already ended');
      ended = true;
      const rows = await ctx.run(() => ctx.db.query(COMMIT, [day, hash, owner]));
      // Only a claim outliving its lease and taken over elsewhere finds no row: not recorded, so no 200.
      if (rows.length === 0) throw new ServiceError('service_stopped', 'the preview ran longer than its claim holds and was not recorded; retry');
    },
    release() {
      if (ended) return;
      ended = true;
      // A release the database misses is a claim whose lease frees it later.
      ctx
        .run(() => ctx.db.query<{ clients: number }>(RELEASE, [day, hash, owner]))
        .then(
          ([row]) => ctx.note(day, row?.clients),
          () => undefined,
        );
    },
  };
}

/** The shared salt: made by the first instance (on conflict do nothing), then read by all. */
async function sharedSalt(db: PgQuery): Promise<Buffer> {
  await db.query('insert into preview_salt (id, salt) values (1, $1) on conflict (id) do nothing', [newSaltHex()]);
  const [row] = await db.query<{ salt: string }>('select salt from preview_salt where id = 1');
  if (!row || !isSaltHex(row.salt)) throw new ServiceError('internal_error', 'the preview_salt row is missing or malformed; delete it to make a new one');
  return Buffer.from(row.salt, 'hex');
}

/** This instance's view of the shared quota: runs its queries, keeps the /health figures, forgets old days. */
interface Tally extends ClaimContext {
  /** Moves to `day` when later: its first sight forgets the days before yesterday. */
  rollTo(day: string, now: Date): void;
  /** Reads the shared count in the background (at most one read at a time). */
  refresh(): void;
  size(): number;
  writable(): boolean;
}

function createTally(db: PgQuery, now: () => Date): Tally {
  let seen = { day: '', clients: 0 };
  let writable = true;
  let refreshing = false;
  /** `writable` is whether the database answered the quota's last query. */
  async function run<R>(query: () => Promise<R>): Promise<R> {
    try {
      const result = await query();
      writable = true;
      return result;
    } catch (err) {
      writable = false;
      throw err;
    }
  }
  const note = (day: string, clients: number | null | undefined): void => {
    if (clients !== null && clients !== undefined && day >= seen.day) seen = { day, clients };
  };
  return {
    db,
    run,
    note,
    rollTo(day, at) {
      if (day <= seen.day) return;
      seen = { day, clients: 0 };
      // An idle database keeps old days until some instance's next claim: they are a few rows.
      void run(() => db.query(FORGET, [utcDayOf(new Date(at.getTime() - DAY_MS))])).catch(() => undefined);
    },
    refresh() {
      if (refreshing) return;
      refreshing = true;
      const day = utcDayOf(now());
      run(() => db.query<{ clients: number }>(COUNT, [day]))
        .then(
          ([r]) => note(day, r?.clients ?? 0),
          () => undefined,
        )
        .finally(() => {
          refreshing = false;
        });
    },
    size: () => (seen.day === utcDayOf(now()) ? seen.clients : 0),
    writable: () => writable,
  };
}

interface ClaimSettings {
  readonly tally: Tally;
  readonly hashOf: (remoteIp: string) => string;
  readonly max: number;
  readonly leaseMs: number;
  readonly now: () => Date;
}

/** One claim: the statement, then what its row says (held, or refused as data). */
async function claimOn(settings: ClaimSettings, remoteIp: string): Promise<ClaimResult> {
  const { tally, leaseMs } = settings;
  const now = settings.now();
  const day = utcDayOf(now);
  tally.rollTo(day, now);
  const hash = settings.hashOf(remoteIp);
  const owner = randomUUID();
  const t = now.getTime();
  const [row] = await tally.run(() => tally.db.query<ClaimRow>(CLAIM, [day, hash, owner, t + leaseMs, settings.max]));
  tally.note(day, row?.slot ?? row?.clients);
  if (row?.claimed) return holdClaim(tally, day, hash, owner);
  if (row && row.slot !== null) {
    // The same client won on another instance between this statement's snapshot and its insert.
    await tally.run(() => tally.db.query(UNSLOT, [day]));
    return refusalAt('in_flight', now);
  }
  if (row?.state === 'used') return refusalAt('used', now);
  if (row?.state === 'claimed' && row.lease_until !== null && row.lease_until <= t) {
    const taken = await tally.run(() => tally.db.query(TAKE_OVER, [day, hash, owner, t + leaseMs, t]));
    if (taken.length > 0) return holdClaim(tally, day, hash, owner);
  }
  return refusalAt(row?.state ? 'in_flight' : 'capacity', now);
}

/** Opens the quota over `db` (its schema migrated): reads the salt and today's count. */
export async function openPgPreviewQuota(config: PgPreviewQuotaConfig): Promise<PreviewQuota> {
  const { db, now } = config;
  const hashOf = clientHasherOf(await sharedSalt(db));
  const tally = createTally(db, now);
  const settings: ClaimSettings = {
    tally,
    hashOf,
    max: config.maxClientsPerDay ?? PREVIEW_CLIENTS_PER_DAY,
    leaseMs: config.leaseMs ?? PREVIEW_CLAIM_LEASE_MS,
    now,
  };
  const today = utcDayOf(now());
  tally.rollTo(today, now());
  tally.note(today, (await tally.run(() => db.query<{ clients: number }>(COUNT, [today])))[0]?.clients ?? 0);
  return {
    claim: (remoteIp) => claimOn(settings, remoteIp),
    // The database is asked at every claim; a fault answers that claim, it stops nothing.
    failure: () => null,
    size: tally.size,
    status() {
      tally.refresh();
      return { clientsToday: tally.size(), writable: tally.writable() };
    },
    // The connection pool is the storage's to close (service/storage.ts).
    close: () => Promise.resolve(),
  };
}

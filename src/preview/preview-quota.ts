/**
 * One free preview per client per UTC day. A preview is claimed before its handler runs (so a
 * second request of the same client meanwhile is refused), committed to disk before its 200 is
 * sent, and released when the answer is anything else, so a failure never uses up the day.
 *
 * Bounded: at most `maxClientsPerDay` clients (recorded plus in flight) a day; beyond that new
 * clients are refused until midnight. The clock is injected: the day and every "next preview at"
 * come from `now`, never from the wall clock directly.
 */
import { createClientHasher } from './client-key.ts';
import { openDayClaimLog } from './day-claim-log.ts';

/** The record of used previews inside the preview directory. */
export const QUOTA_FILE = 'quota.log';
/** Default of --preview-clients-per-day. */
export const PREVIEW_CLIENTS_PER_DAY = 1_000_000;
const DAY_MS = 86_400_000;

export interface PreviewQuotaConfig {
  /** The preview directory (`<dataDir>/preview`): salt and quota file. */
  readonly dir: string;
  readonly maxClientsPerDay?: number;
  readonly now: () => Date;
}

/** Why a claim was refused: this client's preview is used or running, or the day's capacity is. */
export type RefusalReason = 'used' | 'in_flight' | 'capacity';

/** A claim held while the preview is computed: exactly one of commit or release ends it. */
export interface HeldClaim {
  readonly ok: true;
  /** Records the preview as used; resolves once on disk (rejects, releasing the claim, if the write fails). */
  commit(): Promise<void>;
  /** Gives the claim back: the client may preview again today. */
  release(): void;
}

export interface RefusedClaim {
  readonly ok: false;
  readonly reason: RefusalReason;
  /** The next UTC midnight, when the client (and the capacity) is free again. */
  readonly nextPreviewAt: Date;
  /** Whole seconds until then (at least 1). */
  readonly retryAfterSeconds: number;
}

/** What a claim comes to: held, or refused as data. */
export type ClaimResult = HeldClaim | RefusedClaim;

/** The quota's part of /health. */
export interface PreviewStatus {
  /** Clients given (or being given) a preview today: with a database, the shared count as last read. */
  readonly clientsToday: number;
  /** False while previews cannot be recorded (a failed quota file; the database's last answer a fault). */
  readonly writable: boolean;
}

/**
 * The daily quota, in a file (synchronous claim) or in the database (a claim is one statement, so
 * it resolves later; a database fault rejects with ServiceError `database_unavailable`).
 */
export interface PreviewQuota {
  /** Claims today's preview of the client at `remoteIp`. */
  claim(remoteIp: string): ClaimResult | Promise<ClaimResult>;
  /** Why previews are stopped before they run (the quota file failed), or null. */
  failure(): string | null;
  /** Clients recorded today plus claims in flight (for /health and bounds checks). */
  size(): number;
  /** For /health; never waits on the database. */
  status(): PreviewStatus;
  /** Waits for queued writes. */
  close(): Promise<void>;
}

/** The quota in the data dir: its claim is decided in memory at once (the record is written at commit). */
export interface FilePreviewQuota extends PreviewQuota {
  claim(remoteIp: string): ClaimResult;
}

/** `YYYY-MM-DD` of `date` in UTC. */
export function utcDayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The UTC midnight after `date` (a date exactly at midnight gets the next one, a day later). */
export function nextUtcMidnight(date: Date): Date {
  return new Date(Math.floor(date.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

/** Seconds from `date` to the next UTC midnight, rounded up: what `Retry-After` says. */
export function secondsToNextUtcMidnight(date: Date): number {
  return Math.ceil((nextUtcMidnight(date).getTime() - date.getTime()) / 1000);
}

/** The refusal of a claim at `now` for `reason`: free again at the next UTC midnight. */
export function refusalAt(reason: RefusalReason, now: Date): RefusedClaim {
  return { ok: false, reason, nextPreviewAt: nextUtcMidnight(now), retryAfterSeconds: secondsToNextUtcMidnight(now) };
}

/** Opens the quota: the salt (created on first use) and today's records from disk. */
export function openPreviewQuota(config: PreviewQuotaConfig): FilePreviewQuota {
  const max = config.maxClientsPerDay ?? PREVIEW_CLIENTS_PER_DAY;
  const hashOf = createClientHasher(config.dir);
  let day = utcDayOf(config.now());
  const log = openDayClaimLog({ dir: config.dir, file: QUOTA_FILE, day });
  let used = log.loaded;
  // Running claims by day and client hash: a claim belongs to its day, as in the database, so one
  // still running after midnight neither holds the client's new day nor counts against it.
  const inFlight = new Set<string>();
  const running = (d: string, hash: string) => `${d} ${hash}`;
  const runningToday = (): number => {
    let n = 0;
    for (const key of inFlight) if (key.startsWith(`${day} `)) n++;
    return n;
  };

  /** Moves to `now`'s day when it is later (a clock stepping back never reopens a day). */
  function roll(now: Date): void {
    const today = utcDayOf(now);
    if (today <= day) return;
    day = today;
    used = new Set();
  }

  function size(): number {
    roll(config.now());
    return used.size + runningToday();
  }

  function hold(hash: string): HeldClaim {
    const claimDay = day;
    let ended = false;
    const end = (): boolean => {
      if (ended) return false;
      ended = true;
      return true;
    };
    return {
      ok: true,
      async commit() {
        if (!end()) throw new Error('preview claim already ended');
        try {
          await log.append(claimDay, hash);
          if (claimDay === day) used.add(hash);
        } finally {
          inFlight.delete(running(claimDay, hash));
        }
      },
      release() {
        if (end()) inFlight.delete(running(claimDay, hash));
      },
    };
  }

  return {
    claim(remoteIp) {
      const now = config.now();
      roll(now);
      const hash = hashOf(remoteIp);
      const refuse = (reason: RefusalReason): RefusedClaim => refusalAt(reason, now);
      if (used.has(hash)) return refuse('used');
      if (inFlight.has(running(day, hash))) return refuse('in_flight');
      if (used.size + runningToday() >= max) return refuse('capacity');
      inFlight.add(running(day, hash));
      return hold(hash);
    },
    failure: () => log.failure(),
    size,
    status: () => ({ clientsToday: size(), writable: log.failure() === null }),
    close: () => log.close(),
  };
}

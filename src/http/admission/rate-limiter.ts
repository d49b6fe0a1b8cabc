/**
 * Per-client token buckets for the requests that cost the service without paying it: each client
 * may make `burst` requests at once and `ratePerSecond` a second after that; beyond it the request
 * is refused with how long until a token is back. Memory is bounded: at most `maxClients` buckets,
 * the least recently seen dropped first (a dropped client starts again with a full bucket, which
 * only an attacker rotating through more addresses than the cap could use).
 */

import { performance } from 'node:perf_hooks';

/** How many clients are tracked at most: ~100 bytes each, so about 10 MB at the default. */
export const RATE_LIMIT_MAX_CLIENTS = 100_000;

export interface RateLimiterConfig {
  /** Tokens added per second; 0 turns the limiter off. */
  readonly ratePerSecond: number;
  /** Bucket size: requests a client may make at once. */
  readonly burst: number;
  readonly maxClients?: number;
  /** Milliseconds, monotonic (performance.now); injected by tests. */
  readonly now?: () => number;
}

/** A request admitted, or refused with the whole seconds until the client may try again (>= 1). */
export type RateDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

export interface RateLimiter {
  /**
   * Takes `count` tokens (default 1). Admitted when the bucket holds `count`, or a full bucket
   * when `count` is more than the burst: the rest is owed, and the bucket refills from below zero.
   */
  take(clientKey: string, count?: number): RateDecision;
  /** Whether a token is there now, taking none. */
  has(clientKey: string): boolean;
  /** Gives `count` tokens back (never beyond the burst). */
  refund(clientKey: string, count?: number): void;
  /**
   * Takes `count` tokens whatever the bucket holds, for what was already spent (the bytes of an
   * answer once written): the bucket may fall below zero, and `take` refuses until it refilled.
   * True while the bucket is not below zero.
   */
  spend(clientKey: string, count: number): boolean;
  /**
   * Gives back one spend's worth: as much as the last `spend` took, out of what the spends took
   * and was not given back yet (never beyond the burst). A client paying calls in flight gets back
   * each of their challenges, and nothing more than its spends.
   */
  refundSpent(clientKey: string): void;
  /** Clients tracked now. */
  size(): number;
}

interface Bucket {
  tokens: number;
  atMs: number;
  /** What the last `spend` took. */
  lastSpent: number;
  /** What the spends took and was not given back yet (at most the burst). */
  spentUnreturned: number;
}

const ADMITTED: RateDecision = { ok: true };

/** Creates a limiter; with `ratePerSecond` 0 every request is admitted and nothing is tracked. */
export function createRateLimiter(config: RateLimiterConfig): RateLimiter {
  // node:perf_hooks' clock, not the global `performance` (an accessor: a getter call per read).
  const now = config.now ?? (() => performance.now());
  const maxClients = config.maxClients ?? RATE_LIMIT_MAX_CLIENTS;
  const burst = Math.max(1, config.burst);
  const perMs = config.ratePerSecond / 1000;
  const buckets = new Map<string, Bucket>();
  // The most recently seen client, already last in the Map's order.
  let lastKey: string | null = null;
  if (config.ratePerSecond <= 0) return { take: () => ADMITTED, has: () => true, refund: () => {}, spend: () => true, refundSpent: () => {}, size: () => 0 };
  const refill = (bucket: Bucket, t: number) => {
    bucket.tokens = Math.min(burst, bucket.tokens + (t - bucket.atMs) * perMs);
    bucket.atMs = t;
  };
  /** The client's bucket refilled to now, last in the Map's order (the least recently seen first). */
  const bucketOf = (clientKey: string): Bucket => {
    const t = now();
    const seen = buckets.get(clientKey);
    const bucket = seen ?? { tokens: burst, atMs: t, lastSpent: 0, spentUnreturned: 0 };
    refill(bucket, t);
    // Re-inserted when another client came in between. A run of one client's requests (a
    // kept-alive connection) skips the churn of a delete and set per request, which showed in CPU profiles.
    if (clientKey !== lastKey || !seen) {
      if (seen) buckets.delete(clientKey);
      buckets.set(clientKey, bucket);
      lastKey = clientKey;
      if (buckets.size > maxClients) buckets.delete(buckets.keys().next().value!);
    }
    return bucket;
  };
  return {
    take(clientKey, count = 1) {
      // Taking nothing asks whether the client owes: a bucket not below zero never does (a refill
      // only adds), so the common answer costs no clock read (the byte bound asks on every request).
      if (count === 0) {
        const seen = buckets.get(clientKey);
        if (!seen || seen.tokens >= 0) return ADMITTED;
      }
      const bucket = bucketOf(clientKey);
      const need = Math.min(count, burst);
      if (bucket.tokens >= need) {
        bucket.tokens -= count;
        return ADMITTED;
      }
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((need - bucket.tokens) / perMs / 1000)) };
    },
    has(clientKey) {
      const bucket = buckets.get(clientKey);
      if (!bucket) return true;
      refill(bucket, now());
      return bucket.tokens >= 1;
    },
    refund(clientKey, count = 1) {
      // An unknown client's bucket is full by definition: nothing to give back.
      const bucket = buckets.get(clientKey);
      if (bucket) bucket.tokens = Math.min(burst, bucket.tokens + count);
    },
    spend(clientKey, count) {
      const bucket = bucketOf(clientKey);
      bucket.tokens -= count;
      bucket.lastSpent = count;
      bucket.spentUnreturned = Math.min(burst, bucket.spentUnreturned + count);
      return bucket.tokens >= 0;
    },
    refundSpent(clientKey) {
      const bucket = buckets.get(clientKey);
      if (!bucket) return;
      const back = Math.min(bucket.lastSpent, bucket.spentUnreturned);
      bucket.tokens = Math.min(burst, bucket.tokens + back);
      bucket.spentUnreturned -= back;
    },
    size: () => buckets.size,
  };
}

/**
 * Per-client token buckets for the requests that cost the service without paying it: each client
 * may make `burst` requests at once and `ratePerSecond` a second after that; beyond it the request
 * is refused with how long until a token is back. Memory is bounded: at most `maxClients` buckets,
 * the least recently seen dropped first (a dropped client starts again with a full bucket, which
 * only an attacker rotating through more addresses than the cap could use).
 */
import { errorReply, type HttpReply } from '../errors.ts';
import { clientKeyOf } from '../preview/client-key.ts';
import type { HttpRequestData } from './route.ts';

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
  take(clientKey: string): RateDecision;
  /** Clients tracked now. */
  size(): number;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

const ADMITTED: RateDecision = { ok: true };

/** Creates a limiter; with `ratePerSecond` 0 every request is admitted and nothing is tracked. */
export function createRateLimiter(config: RateLimiterConfig): RateLimiter {
  const now = config.now ?? (() => performance.now());
  const maxClients = config.maxClients ?? RATE_LIMIT_MAX_CLIENTS;
  const burst = Math.max(1, config.burst);
  const perMs = config.ratePerSecond / 1000;
  const buckets = new Map<string, Bucket>();
  // The most recently seen client, already last in the Map's order.
  let lastKey: string | null = null;
  if (config.ratePerSecond <= 0) return { take: () => ADMITTED, size: () => 0 };
  return {
    take(clientKey) {
      const t = now();
      const seen = buckets.get(clientKey);
      const bucket = seen ?? { tokens: burst, atMs: t };
      bucket.tokens = Math.min(burst, bucket.tokens + (t - bucket.atMs) * perMs);
      bucket.atMs = t;
      // Re-inserted when another client came in between: the Map's order is then least recently
      // seen first. A run of one client's requests (a kept-alive connection) skips the churn of
      // a delete and set per request, which showed in CPU profiles.
      if (clientKey !== lastKey || !seen) {
        if (seen) buckets.delete(clientKey);
        buckets.set(clientKey, bucket);
        lastKey = clientKey;
        if (buckets.size > maxClients) buckets.delete(buckets.keys().next().value!);
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return ADMITTED;
      }
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
    },
    size: () => buckets.size,
  };
}

/**
 * The admission rule of the public listener: requests that carry a payment are limited by the
 * payment itself; every other request of a client takes a token of its bucket, or gets 429
 * `rate_limited` with `Retry-After`. Clients are keyed like the free preview (an IPv6 /64 is one).
 */
export function freeRequestAdmission(limiter: RateLimiter, config: Pick<RateLimiterConfig, 'ratePerSecond' | 'burst'>) {
  // Off: nothing to key or count on the hot path.
  if (config.ratePerSecond <= 0) return (): HttpReply | null => null;
  // A client sends its requests in runs on one connection: its key is worked out once per run.
  let lastIp = '';
  let lastKey = '';
  return (req: Pick<HttpRequestData, 'remoteIp' | 'headers'>): HttpReply | null => {
    if (req.headers['payment-signature'] !== undefined || req.headers['x-payment'] !== undefined) return null;
    if (req.remoteIp !== lastIp) {
      lastKey = clientKeyOf(req.remoteIp);
      lastIp = req.remoteIp;
    }
    const decision = limiter.take(lastKey);
    if (decision.ok) return null;
    const s = decision.retryAfterSeconds;
    return errorReply(
      {
        error: 'rate_limited',
        message: `too many requests from this client: at most ${config.ratePerSecond} a second (${config.burst} at once) without a payment; retry in ${s} s`,
        retryAfterSeconds: s,
      },
      { 'Retry-After': String(s) },
    );
  };
}

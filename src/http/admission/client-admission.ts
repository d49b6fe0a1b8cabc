/**
 * The per-client limits of the public listener (docs/operations.md#limits-per-client), one rule
 * for HTTP and MCP:
 *
 * - Every call takes a token of its client's free bucket (an HTTP request, each element of an MCP
 *   JSON-RPC batch), except a call carrying a payment that decodes and matches the route's terms:
 *   the paid caller judges that (a paid route's payment header, a paid tool's `_meta` payment),
 *   and a payment that does not match takes the free token after all.
 * - A matching payment takes a token of the client's failed-payment bucket while it is checked;
 *   it gets it back unless the payment or its request was refused, so a client's refused payments
 *   are limited apart (each one may have cost a chain round trip).
 * - A paid call that succeeds gives one token back to the free bucket: the one its 402 challenge
 *   took (the official clients ask unpaid first), so a client that pays is never slowed by the
 *   free limit, and one that only collects 402s, or pays with refused payments, is.
 * - What a client is sent without paying is bounded in bytes too, whatever carried it (a GET, a
 *   HEAD's head, a share of an MCP batch, a feed socket): the bytes of each answer are spent from
 *   the client's byte bucket once written (it may fall below zero: the answer is owed), and while
 *   the bucket is below zero its free requests are refused. A paid 200 costs nothing, and gives
 *   back the bytes of one free answer (its 402, for the official clients): as many as the last
 *   one cost, out of what the free answers cost and was not given back yet.
 *
 * Clients are keyed like the free preview (an IPv6 /64 is one). With the free limit off, the
 * failed-payment limit is off too.
 */
import { errorReply, type HttpReply } from '../../errors.ts';
import { clientKeyOf } from '../../preview/client-key.ts';
import { paymentHeader } from '../../x402/flow/decode-payment.ts';
import type { PaidAdmission } from '../../x402/flow/paid-caller.ts';
import { createRateLimiter, type RateLimiter, type RateLimiterConfig } from './rate-limiter.ts';
import type { HttpRequestData } from '../server/route.ts';

type Limit = Pick<RateLimiterConfig, 'ratePerSecond' | 'burst'>;

export interface ClientAdmissionConfig {
  /** Calls without a (matching) payment. */
  readonly free: Limit;
  /** Bytes sent without a payment (rate 0: no byte bound). */
  readonly bytes?: Limit;
  /** Payments refused for the payment or its request. */
  readonly failed: Limit;
  /** Paths whose payment header the paid caller judges: the paid routes. */
  readonly paidPaths: ReadonlySet<string>;
  /** The path whose calls are counted once its body is read (MCP): the front end only checks a token is left. */
  readonly callsPath: string;
  /** Milliseconds, monotonic; injected by tests. */
  readonly now?: () => number;
}

export interface ClientAdmission {
  /** The front end's check before routing (HttpServerConfig.admit): a 429 reply, or null to go on. */
  door(req: Pick<HttpRequestData, 'method' | 'remoteIp' | 'headers' | 'path'>): HttpReply | null;
  /** `count` calls of one request (the elements of a JSON-RPC batch), all admitted or none. */
  calls(client: string, count: number): HttpReply | null;
  /** Whether the answer of `path` with `status` is spent from its client's bytes (a paid route's 200 is paid for; MCP spends its own share). */
  counts(path: string, status: number): boolean;
  /** Spends `bytes` sent to `client` without a payment; false once the client owes bytes (its free requests are refused until they are back). */
  sent(client: string, bytes: number): boolean;
  /** The limits of calls that carry a payment, for the paid caller. */
  readonly paid: PaidAdmission;
}

function refusal(what: string, limit: Limit, retryAfterSeconds: number, unit = ''): HttpReply {
  const s = retryAfterSeconds;
  const u = unit ? ` ${unit}` : '';
  const message = `too many ${what} ${unit ? 'to' : 'from'} this client: at most ${limit.ratePerSecond}${u} a second (${limit.burst}${u} at once); retry in ${s} s`;
  return errorReply({ error: 'rate_limited', message, retryAfterSeconds: s }, { 'Retry-After': String(s) });
}

const OPEN: ClientAdmission = {
  door: () => null,
  calls: () => null,
  counts: () => false,
  sent: () => true,
  paid: { unmatched: () => null, matched: () => null, ended: () => {} },
};

/** Creates the limits; with the free rate 0 everything is admitted and nothing tracked. */
export function createClientAdmission(config: ClientAdmissionConfig): ClientAdmission {
  if (config.free.ratePerSecond <= 0) return OPEN;
  const clock = config.now ? { now: config.now } : {};
  const free = createRateLimiter({ ...config.free, ...clock });
  const failed: RateLimiter = createRateLimiter({ ...config.failed, ...clock });
  const byteLimit = config.bytes ?? { ratePerSecond: 0, burst: 0 };
  const bytes = createRateLimiter({ ...byteLimit, ...clock });
  // A client sends its requests in runs on one connection: its key is worked out once per run.
  let lastIp = '';
  let lastKey = clientKeyOf('');
  const keyOf = (ip: string): string => {
    if (ip !== lastIp) {
      lastKey = clientKeyOf(ip);
      lastIp = ip;
    }
    return lastKey;
  };
  /** The refusal while the client owes bytes: nothing more is sent to it without a payment until they are back. */
  const owing = (key: string): HttpReply | null => {
    const decision = bytes.take(key, 0);
    return decision.ok ? null : refusal('bytes sent without a payment', byteLimit, decision.retryAfterSeconds, 'bytes');
  };
  /** Takes `count` free calls while the client owes no bytes; refused, it is told the longer of the two waits. */
  const takeFree = (client: string, count = 1): HttpReply | null => {
    const key = keyOf(client);
    const owed = bytes.take(key, 0);
    const decision = free.take(key, count);
    if (decision.ok && owed.ok) return null;
    // Refused for its bytes: the calls are not made, their tokens go back.
    if (decision.ok) free.refund(key, count);
    const callsWait = decision.ok ? 0 : decision.retryAfterSeconds;
    const bytesWait = owed.ok ? 0 : owed.retryAfterSeconds;
    return callsWait >= bytesWait
      ? refusal('requests without a payment', config.free, callsWait)
      : refusal('bytes sent without a payment', byteLimit, bytesWait, 'bytes');
  };
  return {
    door(req) {
      if (req.path === config.callsPath) {
        const key = keyOf(req.remoteIp);
        return free.has(key) ? owing(key) : takeFree(req.remoteIp);
      }
      // A HEAD is never paid (paid-routes.ts): its payment header buys nothing, so it is counted. The
      // header is asked first: an unpaid request (most of them) then costs no hash of its path.
      if (paymentHeader(req.headers) !== null && req.method !== 'HEAD' && config.paidPaths.has(req.path)) return null;
      return takeFree(req.remoteIp);
    },
    calls: (client, count) => (count > 0 ? takeFree(client, count) : null),
    counts: (path, status) => path !== config.callsPath && !(status === 200 && config.paidPaths.has(path)),
    sent: (client, count) => bytes.spend(keyOf(client), count),
    paid: {
      unmatched: (client) => takeFree(client),
      matched(client) {
        const decision = failed.take(keyOf(client));
        return decision.ok ? null : refusal('refused payments', config.failed, decision.retryAfterSeconds);
      },
      ended(client, outcome) {
        const key = keyOf(client);
        if (outcome !== 'failed') failed.refund(key);
        if (outcome !== 'paid') return;
        free.refund(key);
        bytes.refundSpent(key);
      },
    },
  };
}

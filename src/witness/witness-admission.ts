/**
 * Who may hold a witness's connections and how fast each may ask. Anyone who can reach a witness
 * may try to hold every socket it has or flood it with submissions, each a note to parse and
 * signatures to check: the connections are capped in all and per client, and each client's
 * requests are a token bucket. A client is keyed like the service's own clients (an IPv4 address,
 * an IPv6 /64), with the front end's token bucket, so one host cannot multiply itself by address.
 */
import { createRateLimiter } from '../http/admission/rate-limiter.ts';
import { clientKeyOf } from '../preview/client-key.ts';

/** Connections open at once, over all clients; beyond it a new connection is closed at once. */
export const WITNESS_MAX_CONNECTIONS = 256;
/** Connections one client may hold open at once (a log needs one, kept alive). */
export const WITNESS_CONNECTIONS_PER_CLIENT = 16;
/** Requests a client may make a second after its burst (a log submits about once a second at most). */
export const WITNESS_REQUESTS_PER_SECOND = 5;
/** Requests a client may make at once. */
export const WITNESS_REQUEST_BURST = 20;

export interface WitnessLimits {
  readonly maxConnections: number;
  readonly connectionsPerClient: number;
  readonly requestsPerSecond: number;
  readonly requestBurst: number;
}

export const WITNESS_LIMITS: WitnessLimits = {
  maxConnections: WITNESS_MAX_CONNECTIONS,
  connectionsPerClient: WITNESS_CONNECTIONS_PER_CLIENT,
  requestsPerSecond: WITNESS_REQUESTS_PER_SECOND,
  requestBurst: WITNESS_REQUEST_BURST,
};

export interface WitnessAdmission {
  /** A new connection from `address`: true to keep it (and count it until `closed`), false to close it now. */
  opened(address: string): boolean;
  closed(address: string): void;
  /** A request from `address`: 0 to answer it, else the whole seconds until the client may ask again. */
  request(address: string): number;
}

/** The limits of one witness listener; `now` (ms, monotonic) is injected by tests. */
export function createWitnessAdmission(limits: WitnessLimits = WITNESS_LIMITS, now?: () => number): WitnessAdmission {
  const requests = createRateLimiter({ ratePerSecond: limits.requestsPerSecond, burst: limits.requestBurst, ...(now ? { now } : {}) });
  const open = new Map<string, number>();
  let total = 0;
  return {
    opened(address) {
      const key = clientKeyOf(address);
      const held = open.get(key) ?? 0;
      if (total >= limits.maxConnections || held >= limits.connectionsPerClient) return false;
      open.set(key, held + 1);
      total += 1;
      return true;
    },
    closed(address) {
      const key = clientKeyOf(address);
      const held = open.get(key) ?? 0;
      if (held === 0) return;
      total -= 1;
      if (held === 1) open.delete(key);
      else open.set(key, held - 1);
    },
    request(address) {
      const decision = requests.take(clientKeyOf(address));
      return decision.ok ? 0 : decision.retryAfterSeconds;
    },
  };
}

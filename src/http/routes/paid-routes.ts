/**
 * Routes of the paid endpoints, built from the catalog: each GET hands its query and its
 * `PAYMENT-SIGNATURE` (or `X-PAYMENT`) header to the paid caller, which validates (400 before any
 * challenge), answers the 402 challenge or lets the payment processor run the handler and settle
 * only for a 200 (docs/contract.md#paid-call-flow).
 */
import { CATALOG, type EndpointEntry } from '../../catalog/endpoints.ts';
import { paymentHeader } from '../../x402/flow/decode-payment.ts';
import { createPaidCaller, type PaidAttempt, type PaidCaller, type PaidCallerConfig, type SentPayment } from '../../x402/flow/paid-caller.ts';
import type { HttpRequestData, Route } from '../server/route.ts';

export interface PaidRoutesConfig extends PaidCallerConfig {
  /** Public base URL; known only after listen when the port is ephemeral. */
  readonly baseUrl: () => string;
}

/**
 * One HTTP request as a paid attempt. A class, not an object literal with a getter: V8 builds
 * such a literal slowly, and this runs for every 402 and 400.
 */
class HttpAttempt implements PaidAttempt {
  readonly query: string;
  readonly payment: SentPayment;
  readonly client: string;
  constructor(
    readonly entry: EndpointEntry,
    private readonly req: HttpRequestData,
    readonly resourceUrl: string,
  ) {
    this.query = req.query;
    this.client = req.remoteIp;
    // HEAD is safe (RFC 9110 9.2.1): it never settles a payment, so it is answered as unpaid, a 402's head.
    const header = req.method === 'HEAD' ? null : paymentHeader(req.headers);
    this.payment = header === null ? null : { header };
  }

  /** Read only when a payment is processed: an unpaid answer never makes the request's AbortController. */
  get signal(): AbortSignal {
    return this.req.signal;
  }
}

/** Resource URLs kept per route, by query (oldest dropped first), as the kept 402s and verdicts are (paid-caller.ts). */
export const MAX_KEPT_RESOURCE_URLS = 512;
/** Longer queries get their URL built every time. */
const MAX_KEPT_QUERY_CHARS = 256;

/**
 * The request's resource URL, the key of its route's kept 402: the string kept for the query is
 * handed out again, so a poller's 402 is found without building, flattening and hashing ~100
 * characters anew. The base URL is part of the key (it is known once the service listens).
 */
function createResourceUrls(path: string, baseUrl: () => string): (query: string) => string {
  const kept = new Map<string, string>();
  let keptFor = '';
  return (query) => {
    const base = baseUrl();
    if (base !== keptFor) {
      kept.clear();
      keptFor = base;
    }
    const known = kept.get(query);
    if (known !== undefined) return known;
    const url = `${base}${path}${query ? `?${query}` : ''}`;
    if (query.length > MAX_KEPT_QUERY_CHARS) return url;
    if (kept.size >= MAX_KEPT_RESOURCE_URLS) kept.delete(kept.keys().next().value!);
    kept.set(query, url);
    return url;
  };
}

function paidRoute(entry: EndpointEntry, config: PaidRoutesConfig, caller: PaidCaller): Route {
  const urlOf = createResourceUrls(entry.path, config.baseUrl);
  return {
    method: 'GET',
    path: entry.path,
    handler: (req) => caller(new HttpAttempt(entry, req, urlOf(req.query))),
  };
}

/** One route per catalog entry. */
export function createPaidRoutes(config: PaidRoutesConfig): Route[] {
  const caller = createPaidCaller(config);
  return CATALOG.map((entry) => paidRoute(entry, config, caller));
}

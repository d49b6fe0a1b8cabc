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
  readonly resourceUrl: string;
  readonly payment: SentPayment;
  readonly client: string;
  constructor(
    readonly entry: EndpointEntry,
    private readonly req: HttpRequestData,
    baseUrl: string,
  ) {
    this.query = req.query;
    this.client = req.remoteIp;
    this.resourceUrl = `${baseUrl}${req.path}${req.query ? `?${req.query}` : ''}`;
    // HEAD is safe (RFC 9110 9.2.1): it never settles a payment, so it is answered as unpaid, a 402's head.
    const header = req.method === 'HEAD' ? null : paymentHeader(req.headers);
    this.payment = header === null ? null : { header };
  }

  /** Read only when a payment is processed: an unpaid answer never makes the request's AbortController. */
  get signal(): AbortSignal {
    return this.req.signal;
  }
}

function paidRoute(entry: EndpointEntry, config: PaidRoutesConfig, caller: PaidCaller): Route {
  return {
    method: 'GET',
    path: entry.path,
    handler: (req) => caller(new HttpAttempt(entry, req, config.baseUrl())),
  };
}

/** One route per catalog entry. */
export function createPaidRoutes(config: PaidRoutesConfig): Route[] {
  const caller = createPaidCaller(config);
  return CATALOG.map((entry) => paidRoute(entry, config, caller));
}

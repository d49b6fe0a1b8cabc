/**
 * Routes of the paid endpoints, built from the catalog: each GET hands its query and its
 * `PAYMENT-SIGNATURE` (or `X-PAYMENT`) header to the paid caller, which validates (400 before any
 * challenge), answers the 402 challenge or lets the payment processor run the handler and settle
 * only for a 200 (docs/contract.md#paid-call-flow).
 */
import { CATALOG, type EndpointEntry } from '../catalog/endpoints.ts';
import { paymentHeader } from '../x402/decode-payment.ts';
import { createPaidCaller, type PaidCaller, type PaidCallerConfig } from '../x402/paid-caller.ts';
import type { Route } from './route.ts';

export interface PaidRoutesConfig extends PaidCallerConfig {
  /** Public base URL; known only after listen when the port is ephemeral. */
  readonly baseUrl: () => string;
}

function paidRoute(entry: EndpointEntry, config: PaidRoutesConfig, caller: PaidCaller): Route {
  return {
    method: 'GET',
    path: entry.path,
    handler(req) {
      const header = paymentHeader(req.headers);
      return caller({
        entry,
        query: req.query,
        resourceUrl: `${config.baseUrl()}${req.path}${req.query ? `?${req.query}` : ''}`,
        payment: header === null ? null : { header },
        // Read only when a payment is processed: an unpaid answer never makes the request's AbortController.
        get signal() {
          return req.signal;
        },
      });
    },
  };
}

/** One route per catalog entry. */
export function createPaidRoutes(config: PaidRoutesConfig): Route[] {
  const caller = createPaidCaller(config);
  return CATALOG.map((entry) => paidRoute(entry, config, caller));
}

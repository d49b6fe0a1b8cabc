/**
 * One paid call as the payment processor sees it, and what the settlement records derive from it:
 * the paid resource (URL, endpoint, price) and the digest that ties a pending record to the very
 * payment that made it.
 */
import { createHash } from 'node:crypto';
import type { EndpointEntry } from '../../catalog/endpoints.ts';
import type { HttpReply } from '../../errors.ts';
import type { PendingSettlement } from '../state/pending-settlements.ts';
import type { PaymentPayload, PaymentRequirements } from './x402-types.ts';

/** What of the request the processor reads: where it went, and whether its caller is still there. */
export interface PaidRequest {
  readonly path: string;
  /** Raw query string without `?`. */
  readonly query: string;
  /** Fires when the caller disconnects: nothing is settled for an answer nobody receives. */
  readonly signal: AbortSignal;
}

/** One paid request with a decoded payment whose terms are the route's. */
export interface PaidCall {
  readonly entry: EndpointEntry;
  readonly payment: PaymentPayload;
  readonly requirements: PaymentRequirements;
  readonly resourceUrl: string;
  readonly request: PaidRequest;
  /** Produces the answer; the processor settles only when it is a 200. */
  readonly answer: () => Promise<HttpReply>;
}

/** What was paid for: the request's path and query, the endpoint and its price. */
export function paidOf(call: PaidCall): PendingSettlement['paid'] {
  return {
    originalUrl: `${call.request.path}${call.request.query ? `?${call.request.query}` : ''}`,
    endpoint: call.entry.path,
    priceUsdcUnits: call.entry.priceUnits,
  };
}

/** SHA-256 (hex) of the payment's payload: a retry must carry the same payment as the record. */
export function payloadSha256(call: PaidCall): string {
  return createHash('sha256').update(JSON.stringify(call.payment.payload)).digest('hex');
}

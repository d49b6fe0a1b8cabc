/**
 * One paid call as the payment processor sees it, and what the settlement records derive from it:
 * the paid resource (URL, endpoint, price) and the digest that ties a pending record to the very
 * payment that made it.
 */
import { createHash } from 'node:crypto';
import type { EndpointEntry } from '../../catalog/endpoints.ts';
import type { HttpReply } from '../../errors.ts';
import type { PaidAnswer } from '../../trust/receipt-issuer.ts';
import type { PaymentPayload, PaymentRequirements } from './x402-types.ts';

/**
 * What a paid call bought: the request's path and query, the endpoint and its price. A name of
 * its own, apart from PaidCall, because it outlives the call: a settlement record keeps it for a
 * retry or a restart (which no longer have the call), and the receipt names it (PaidAnswer, in
 * the trust layer below, adds the network and the body).
 */
export type PaidResource = Pick<PaidAnswer, 'originalUrl' | 'endpoint' | 'priceUsdcUnits'>;

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
export function paidOf(call: PaidCall): PaidResource {
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

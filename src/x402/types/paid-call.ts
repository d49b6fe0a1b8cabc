/**
 * The paid call, the one type the payment path carries from the flow to delivery, and what the
 * settlement records derive from it: the paid resource (URL, endpoint, price) and the digest that
 * ties a pending record to the very payment that made it.
 */
import type { StagedWrite } from '../../durable/staged-write.ts';
import { createHash } from 'node:crypto';
import type { PricedResource } from '../../catalog/endpoints.ts';
import type { HttpReply } from '../../errors.ts';
import type { PaidAnswer } from '../../receipts/receipt-issuer.ts';
import type { PaymentPayload, PaymentRequirements } from './x402-types.ts';

/**
 * What a paid call bought: the request's path and query, the endpoint and its price. A name of
 * its own, apart from PaidCall, because it outlives the call: a settlement record keeps it for a
 * retry or a restart (which no longer have the call), and the receipt names it (PaidAnswer, in
 * the trust layer below, adds the network and the body).
 */
export type PaidResource = Pick<PaidAnswer, 'originalUrl' | 'endpoint' | 'priceUsdcUnits'>;

/**
 * One paid call, as the payment path carries it end to end: the flow builds it once its payment
 * matched the route's terms, and the processor, the exact settlement, the channels and delivery
 * all take this one value (what outlives the call is its PaidResource, in the settlement record).
 */
export interface PaidCall {
  readonly entry: PricedResource;
  /** The payment, decoded once (flow/decode-payment.ts); each scheme reads its own payload once too (decodeOnce). */
  readonly payment: PaymentPayload;
  /** The route's terms the payment accepted. */
  readonly requirements: PaymentRequirements;
  /** The resource the 402 challenge names: the request URL, or `mcp://tool/<name>`. */
  readonly resourceUrl: string;
  /**
   * Where the request went (`query` without `?`), `signal`: fires when the caller goes away, so
   * nothing is settled for an answer nobody receives; and `client`, the caller's address as the
   * front end saw it, which the money stores' per-address shares count (absent: not counted).
   */
  readonly request: { readonly path: string; readonly query: string; readonly signal: AbortSignal; readonly client?: string };
  /** Produces the answer; the processor settles only when it is a 200. */
  readonly answer: () => Promise<HttpReply>;
  /**
   * More state for the 200's one durable commit, staged from the reply as sent: the
   * payment-identifier's kept answer. Absent when nothing rides along.
   */
  readonly alsoKeep?: (reply: HttpReply) => readonly StagedWrite[];
}

/** What was paid for: the request's path and query, the endpoint and its price. */
export function paidOf(call: PaidCall): PaidResource {
  return {
    originalUrl: `${call.request.path}${call.request.query ? `?${call.request.query}` : ''}`,
    endpoint: call.entry.path,
    priceUsdcUnits: call.entry.priceUnits,
  };
}

const payloadDigests = new WeakMap<PaymentPayload, string>();

/** SHA-256 (hex) of the payment's payload, computed once a payment: a retry must carry the same payment as the record. */
export function payloadSha256(call: PaidCall): string {
  let digest = payloadDigests.get(call.payment);
  if (digest === undefined) {
    digest = createHash('sha256').update(JSON.stringify(call.payment.payload)).digest('hex');
    payloadDigests.set(call.payment, digest);
  }
  return digest;
}

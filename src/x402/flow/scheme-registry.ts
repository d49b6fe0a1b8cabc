/**
 * Which settlement takes a paid call: one registry keyed by x402 scheme and network pattern, the
 * way x402 facilitators register their schemes (`exact` on `solana:*`, `batch-settlement` on
 * `eip155:8453`). Each entry is a scheme in the facilitator's role for the networks it matches:
 * it verifies, settles and answers a call. The server's role (the terms each route offers) is the
 * challenge builder's (delivery/payment-terms.ts); the payment processor asks this registry once
 * per paid call and knows no scheme by name.
 */
import type { HttpReply } from '../../errors.ts';
import type { PaidTiming } from '../delivery/paid-timing.ts';
import type { PaidCall } from '../types/paid-call.ts';

/** A scheme in the facilitator's role on the networks `network` matches. */
export interface SchemeFacilitator {
  readonly scheme: string;
  /** A CAIP-2 network (`eip155:8453`) or every network of a namespace (`solana:*`). */
  readonly network: string;
  /** Verifies and settles the call's payment, and answers it (a 402 naming the reason when refused). */
  settle(call: PaidCall, timing: PaidTiming): Promise<HttpReply>;
  /** The payer the payment names, unchecked ('' when it names none): the shares are asked with it before anything is verified. */
  payerOf(call: PaidCall): string;
}

/** What a call finds: its facilitator, or why there is none (an x402 reason and its sentence). */
export type SchemeFound =
  | { readonly ok: true; readonly facilitator: SchemeFacilitator }
  | { readonly ok: false; readonly reason: 'unsupported_scheme' | 'invalid_network'; readonly message: string };

/** Whether `pattern` (a network, or `namespace:*`) names `network`. */
export function networkMatches(pattern: string, network: string): boolean {
  return pattern.endsWith(':*') ? network.startsWith(pattern.slice(0, -1)) : pattern === network;
}

/** The registry over `facilitators`; the first that matches a call's scheme and network takes it. */
export function createSchemeRegistry(facilitators: readonly SchemeFacilitator[]): (scheme: string, network: string) => SchemeFound {
  return (scheme, network) => {
    const ofScheme = facilitators.filter((f) => f.scheme === scheme);
    const facilitator = ofScheme.find((f) => networkMatches(f.network, network));
    if (facilitator) return { ok: true, facilitator };
    if (ofScheme.length === 0) return { ok: false, reason: 'unsupported_scheme', message: `the ${scheme} scheme is not offered here` };
    return { ok: false, reason: 'invalid_network', message: `no settlement path is configured for ${network}` };
  };
}

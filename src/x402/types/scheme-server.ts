/**
 * The server role of one network's `exact` scheme, in x402's vocabulary (its scheme-network
 * server): what the resource server reads from a payment before any facilitator checks it, to
 * keep its own books: the key that guards against a replay, and the payer the money stores'
 * shares are asked with. The facilitator role (verify, settle) is scheme-facilitator.ts.
 */
import type { PaymentPayload } from './x402-types.ts';

/** One network's exact scheme as the resource server reads its payments. */
export interface ExactSchemeServer {
  /** CAIP-2 network id this scheme serves. */
  readonly network: string;
  /**
   * A stable key of the payment for replay protection (Solana: the payer's transaction signature;
   * EVM: token + authorizer + nonce). Null when the payload is too malformed to have one.
   */
  replayKey(payment: PaymentPayload): string | null;
  /**
   * The payer the payment names (Solana: the transfer authority; EVM: the authorization's `from`),
   * read without any check, or null: the money stores' per-payer shares are asked with it before
   * the payment is verified. A payment that verifies pays from this very payer.
   */
  payerOf?(payment: PaymentPayload): string | null;
}

/**
 * `decode` run once per payment: the processor hands the very same PaymentPayload object to
 * `replayKey`, `verify` and `settle` (and `settlementStatus` on a retry), so a scheme that reads
 * its payload through this decodes the transaction or authorization once a call, not at each step.
 * Keyed weakly by the payment: nothing is kept once the call is over.
 */
export function decodeOnce<T>(decode: (payment: PaymentPayload) => T): (payment: PaymentPayload) => T {
  const decoded = new WeakMap<PaymentPayload, T>();
  return (payment) => {
    if (decoded.has(payment)) return decoded.get(payment) as T;
    const value = decode(payment);
    decoded.set(payment, value);
    return value;
  };
}

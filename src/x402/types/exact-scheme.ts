/**
 * The contract every network's `exact` scheme implements (Solana and Base), so the payment
 * processor is network-agnostic. Shapes follow x402 v2's facilitator types: `VerifyResponse`
 * (`isValid`, `invalidReason`, `payer`) and `SettleResponse` (`success`, `errorReason`,
 * `transaction`, `network`, `payer`). Expected failures are data, never thrown.
 */
import type { PaymentPayload, PaymentRequirements } from './x402-types.ts';

export interface VerifyResult {
  readonly isValid: boolean;
  /** x402 reason code when invalid, e.g. `invalid_exact_svm_payload_transaction_amount_mismatch`. */
  readonly invalidReason?: string;
  readonly invalidMessage?: string;
  readonly payer?: string;
  /**
   * Milliseconds verify spent waiting on the chain (Solana: the simulation; Base: the nonce and
   * balance read), when it got that far: the paid answer's `Server-Timing` shows it apart.
   */
  readonly simulateMs?: number;
  /**
   * The refusal came from a chain or facilitator that could not be asked (down, timed out), not
   * from the payment: the same payment may pass a moment later, so it is not remembered as failed.
   */
  readonly transient?: boolean;
}

export interface SettleResult {
  readonly success: boolean;
  readonly errorReason?: string;
  readonly errorMessage?: string;
  readonly payer?: string;
  /** Transaction signature (Solana) or hash (EVM); empty string when nothing was sent. */
  readonly transaction: string;
  readonly network: string;
  /** Added to the `PAYMENT-RESPONSE` as its `extra` (an early answer says its settlement is only submitted). */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Refused before anything was broadcast, for what the payment itself is (e.g. a failed preflight): its repeat is refused from memory. */
  readonly refused?: boolean;
}

/** Where a settlement that was reported `settlement_pending` stands now. */
export type SettlementStatus =
  | { readonly status: 'landed' }
  /** Definitive: it failed on chain, or it can no longer land (e.g. its blockhash expired). */
  | { readonly status: 'failed'; readonly reason: string; readonly message: string }
  | { readonly status: 'pending'; readonly message: string };

/**
 * Called by `settle` right before the payment can first reach the chain, with the transaction id
 * when it is known by then ('' when the id only comes back from the broadcast). Awaited: a
 * throw means nothing is broadcast. The processor writes its durable record of the settlement
 * here, so a crash after the broadcast still finds it on the next start.
 */
export type BeforeBroadcast = (transaction: string) => Promise<void>;

/**
 * Called by `settle` once the node accepted the transaction (the send returned and its preflight
 * passed), before the wait for the commitment: the moment an early answer may leave (early-settlement.ts).
 */
export type OnAccepted = (transaction: string) => void;

/** One network's exact scheme: verify before answering, settle only after a 200 is ready. */
export interface ExactScheme {
  /** CAIP-2 network id this scheme serves. */
  readonly network: string;
  /**
   * Extra fields of this scheme's `/facilitator/supported` kind (e.g. `feePayer`): x402's
   * `getExtra`, without the network argument, since a scheme here serves one network.
   */
  getExtra(): Readonly<Record<string, string>>;
  /** Addresses that sign settlements on this network: x402's `getSigners`, for the one network served. */
  getSigners(): readonly string[];
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
  verify(payment: PaymentPayload, requirements: PaymentRequirements, signal: AbortSignal): Promise<VerifyResult>;
  settle(
    payment: PaymentPayload,
    requirements: PaymentRequirements,
    signal: AbortSignal,
    beforeBroadcast?: BeforeBroadcast,
    onAccepted?: OnAccepted,
  ): Promise<SettleResult>;
  /** The scheme tells `onAccepted` of a send the node took before its confirmation: early answers are possible. */
  readonly reportsAcceptance?: boolean;
  /**
   * What the settlement of this payment costs our side in network fees, in the payment token's
   * units, when it fails: with `reason` (how it failed), what it actually cost (0 when it never
   * landed); without, the most it can cost. Early answers count it against their loss budget.
   */
  failureFeeUnits?(payment: PaymentPayload, reason?: string): number;
  /**
   * Checks a settlement that `settle` reported pending (`transaction` is what it returned).
   * Schemes without it never leave a pending settlement behind: the pending answer is final.
   */
  settlementStatus?(payment: PaymentPayload, requirements: PaymentRequirements, transaction: string, signal: AbortSignal): Promise<SettlementStatus>;
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

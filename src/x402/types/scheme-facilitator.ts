/**
 * The facilitator role of one network's `exact` scheme, in x402's vocabulary (its scheme-network
 * facilitator): verify a payment against its requirements, settle it on chain, and say what
 * `/facilitator/supported` lists for it (its `extra` and signers). This service is its own
 * facilitator, so the role runs in process. Shapes follow x402 v2's facilitator types:
 * `VerifyResponse` (`isValid`, `invalidReason`, `payer`) and `SettleResponse` (`success`,
 * `errorReason`, `transaction`, `network`, `payer`). Expected failures are data, never thrown.
 * The server role (reading a payment before it is verified) is scheme-server.ts.
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
  | { readonly status: 'failed'; readonly reason: string; readonly message: string; readonly neverLanded?: boolean }
  | { readonly status: 'pending'; readonly message: string };

/**
 * Called by `settle` right before the payment can first reach the chain, with the transaction id
 * when it is known by then ('' when the id only comes back from the broadcast). Awaited: a
 * throw means nothing is broadcast. The processor writes its durable record of the settlement
 * here, so a crash after the broadcast still finds it on the next start. It may answer with a
 * `BroadcastPlan` (Solana: an early answer's hand-off); nothing, or a scheme that cannot, sends as usual.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook that only writes the record resolves to nothing (an async function's void).
export type BeforeBroadcast = (transaction: string) => Promise<void | BroadcastPlan>;

/**
 * `handOff`: send without the node's preflight and report acceptance (`OnAccepted`) as soon as the
 * transaction is handed to the RPC, not when its answer comes back. Asked only for an early answer
 * whose loss, should the payment fail, the bounds already count (docs/payments.md#the-hand-off).
 */
export interface BroadcastPlan {
  readonly handOff: boolean;
}

/**
 * Called by `settle` once the node accepted the transaction (the send returned and its preflight
 * passed; under a `handOff` plan, once it was handed to the RPC), before the wait for the
 * commitment: the moment an early answer may leave (early-settlement.ts).
 */
export type OnAccepted = (transaction: string) => void;

/** One network's exact scheme as a facilitator: verify before answering, settle only after a 200 is ready. */
export interface ExactSchemeFacilitator {
  /** CAIP-2 network id this scheme serves. */
  readonly network: string;
  /**
   * Extra fields of this scheme's `/facilitator/supported` kind (e.g. `feePayer`): x402's
   * `getExtra`, without the network argument, since a scheme here serves one network.
   */
  getExtra(): Readonly<Record<string, string>>;
  /** Addresses that sign settlements on this network: x402's `getSigners`, for the one network served. */
  getSigners(): readonly string[];
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
  /**
   * Sends again the very transaction `transaction` names (the same signature), for a settlement
   * whose record was made durable before its broadcast by a process that then stopped (the
   * restart's recovery: it may never have been sent). One already landed or in flight is
   * harmless; nothing is sent when the payment no longer makes that transaction. Never throws.
   */
  rebroadcast?(payment: PaymentPayload, transaction: string, signal: AbortSignal): Promise<void>;
}

/**
 * The x402 v2 wire types the payment modules share, and the networks they name. The bottom of
 * src/x402: it imports nothing, so every other payment module (and the layers above) can take
 * these shapes without taking each other.
 */

/** Canonical CAIP-2 id of Solana mainnet-beta (genesis hash prefix). */
export const SOLANA_MAINNET_CAIP2 = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
/** CAIP-2 id of Base mainnet. */
export const BASE_MAINNET_CAIP2 = 'eip155:8453';

/** The x402 schemes this service settles: one payment per call, or a payment channel (Base only). */
export type PaymentScheme = 'exact' | 'batch-settlement';

/** One x402 v2 PaymentRequirements object: an `accepts` option of a 402 challenge. */
export interface PaymentRequirements {
  readonly scheme: PaymentScheme;
  readonly network: string;
  readonly amount: string;
  readonly asset: string;
  readonly payTo: string;
  readonly maxTimeoutSeconds: number;
  /** Scheme terms; strings, except a channel's `withdrawDelay` (seconds), a number on the wire. */
  readonly extra: Readonly<Record<string, string | number>>;
}

/** The x402 v2 PaymentPayload a client sends in `PAYMENT-SIGNATURE` (base64 JSON). */
export interface PaymentPayload {
  readonly x402Version: 2;
  readonly accepted: PaymentRequirements;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly resource?: unknown;
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** The x402 SettleResponse carried base64 JSON in the `PAYMENT-RESPONSE` header of a paid 200. */
export interface SettleResponse {
  readonly success: boolean;
  /** Why a settlement failed (x402 error reason); absent on success. */
  readonly errorReason?: string;
  readonly transaction: string;
  readonly network: string;
  readonly payer: string;
  /** A channel payment's moved amount ('' for a voucher: nothing moved on chain). */
  readonly amount?: string;
  /** A channel payment's charge and channel snapshot. */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** The answers of x402 extensions by key (the signed `offer-receipt` receipt). */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** One x402 `SupportedKind`: a scheme and network this service settles now. */
export interface SupportedKind {
  readonly x402Version: 2;
  readonly scheme: PaymentScheme;
  readonly network: string;
  readonly extra?: Readonly<Record<string, string>>;
}

/** The parts of the x402 `SupportedResponse` that depend on the settlement paths: kinds and their signers. */
export interface SupportedKinds {
  readonly kinds: readonly SupportedKind[];
  /** Addresses that sign settlements, by CAIP-2 network. */
  readonly signers: Readonly<Record<string, readonly string[]>>;
}

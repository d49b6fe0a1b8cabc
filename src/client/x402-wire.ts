/**
 * The x402 v2 objects the client library reads and writes, as a payer sees them. The service's own
 * wire types live in its payment layer, which a client may not import; these are the same shapes,
 * read from untrusted bytes (every field is checked where it is used), and structurally what the
 * official `@x402/core` types describe, so they pass to the official schemes as they are.
 */

/** Canonical CAIP-2 id of Solana mainnet-beta (genesis hash prefix). */
export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
/** CAIP-2 id of Base mainnet. */
export const BASE_MAINNET = 'eip155:8453';
/** Base's EVM chain id. */
export const BASE_CHAIN_ID = 8453;

/** One `accepts` option of a route: an x402 v2 PaymentRequirements object. */
export interface Terms {
  readonly scheme: string;
  readonly network: string;
  readonly amount: string;
  readonly asset: string;
  readonly payTo: string;
  readonly maxTimeoutSeconds: number;
  readonly extra: Readonly<Record<string, unknown>>;
}

/** The x402 v2 PaymentRequired of a 402 (its PAYMENT-REQUIRED header, decoded). */
export interface PaymentRequired {
  readonly x402Version: number;
  readonly error?: string;
  readonly resource?: { readonly url: string; readonly description?: string; readonly mimeType?: string };
  readonly accepts: readonly Terms[];
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** The x402 SettleResponse of a paid answer (its PAYMENT-RESPONSE header, decoded). */
export interface PaymentResponse {
  readonly success: boolean;
  readonly transaction: string;
  readonly network: string;
  readonly payer?: string;
  readonly errorReason?: string;
  /** A channel payment's moved amount ('' for a voucher: nothing moved on chain). */
  readonly amount?: string;
  /** A channel payment's charge and channel state; a Solana early answer's `settlement: "submitted"`. */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** The answers of x402 extensions by key (the signed `offer-receipt` receipt). */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Base64 JSON of a header as an object, or null when it is not one. */
export function decodeHeaderJson(header: string | undefined | null): Json | null {
  if (!header) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(header.trim(), 'base64').toString('utf8'));
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** An `accepts` option read from untrusted JSON, or null when a field is missing or of the wrong type. */
export function readTerms(value: unknown): Terms | null {
  if (!isObject(value)) return null;
  const { scheme, network, amount, asset, payTo, maxTimeoutSeconds, extra } = value;
  if (typeof scheme !== 'string' || typeof network !== 'string' || typeof asset !== 'string' || typeof payTo !== 'string') return null;
  if (typeof amount !== 'string' || !/^\d{1,30}$/.test(amount)) return null;
  if (typeof maxTimeoutSeconds !== 'number' || !Number.isSafeInteger(maxTimeoutSeconds) || maxTimeoutSeconds <= 0) return null;
  return { scheme, network, amount, asset, payTo, maxTimeoutSeconds, extra: isObject(extra) ? extra : {} };
}

/** The PaymentRequired of a 402's PAYMENT-REQUIRED header, or null when it is absent or not one. */
export function decodePaymentRequired(header: string | undefined | null): PaymentRequired | null {
  const json = decodeHeaderJson(header);
  if (!json || !Array.isArray(json.accepts)) return null;
  const accepts = json.accepts.map(readTerms).filter((t): t is Terms => t !== null);
  return {
    x402Version: typeof json.x402Version === 'number' ? json.x402Version : 0,
    ...(typeof json.error === 'string' ? { error: json.error } : {}),
    accepts,
    ...(isObject(json.extensions) ? { extensions: json.extensions } : {}),
  };
}

/** The last header decoded and what it read: a paid answer's header is read by its lane and by its result, once. */
let lastResponse: { readonly header: string; readonly decoded: PaymentResponse | null } | null = null;

/** The SettleResponse of a PAYMENT-RESPONSE header, or null when it is absent or not one. */
export function decodePaymentResponse(header: string | undefined | null): PaymentResponse | null {
  if (!header) return null;
  if (lastResponse?.header === header) return lastResponse.decoded;
  const decoded = readPaymentResponse(header);
  lastResponse = { header, decoded };
  return decoded;
}

function readPaymentResponse(header: string): PaymentResponse | null {
  const json = decodeHeaderJson(header);
  if (!json || typeof json.success !== 'boolean') return null;
  return {
    success: json.success,
    transaction: typeof json.transaction === 'string' ? json.transaction : '',
    network: typeof json.network === 'string' ? json.network : '',
    ...(typeof json.payer === 'string' ? { payer: json.payer } : {}),
    ...(typeof json.errorReason === 'string' ? { errorReason: json.errorReason } : {}),
    ...(typeof json.amount === 'string' ? { amount: json.amount } : {}),
    ...(isObject(json.extra) ? { extra: json.extra } : {}),
    ...(isObject(json.extensions) ? { extensions: json.extensions } : {}),
  };
}

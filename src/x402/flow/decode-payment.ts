/**
 * Reads an x402 v2 payment from request headers (`PAYMENT-SIGNATURE`, or `X-PAYMENT` as older
 * clients send it) or from an MCP tool call's `_meta`, and checks that the terms it accepted are
 * exactly one of the route's. Pure and cheap: signature checks and settlement happen later, in the
 * pool and the settler.
 */
import type { PaymentPayload, PaymentRequirements } from '../types/x402-types.ts';

/** Largest payment header accepted, characters (a signed Solana tx in base64 JSON is ~2.5 kB). */
export const MAX_PAYMENT_HEADER_CHARS = 12_288;

export type DecodeResult =
  | { readonly ok: true; readonly payment: PaymentPayload; readonly requirements: PaymentRequirements }
  | { readonly ok: false; readonly reason: string; readonly message: string };

/** The raw payment header value, or null when the request carries none. */
export function paymentHeader(headers: Readonly<Record<string, string>>): string | null {
  return headers['payment-signature'] ?? headers['x-payment'] ?? null;
}

function sameTerms(a: PaymentRequirements, b: Record<string, unknown>): boolean {
  if (a.scheme !== b.scheme || a.network !== b.network || a.amount !== b.amount) return false;
  if (a.asset !== b.asset || a.payTo !== b.payTo || a.maxTimeoutSeconds !== b.maxTimeoutSeconds) return false;
  const extra = (b.extra ?? {}) as Record<string, unknown>;
  // Our own extra fields must come back unchanged; a client may not add or alter terms.
  return Object.entries(a.extra).every(([k, v]) => extra[k] === v);
}

/** Decodes the base64 JSON payload and matches its `accepted` terms against the route's. */
export function decodePayment(header: string, accepts: readonly PaymentRequirements[]): DecodeResult {
  if (header.length > MAX_PAYMENT_HEADER_CHARS) return { ok: false, reason: 'invalid_payload', message: 'payment header is too large' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(header.trim(), 'base64').toString('utf8'));
  } catch {
    return { ok: false, reason: 'invalid_payload', message: 'payment header is not base64 JSON' };
  }
  return matchPayment(parsed, accepts);
}

/**
 * Checks an already parsed PaymentPayload (the MCP transport carries it as a JSON object in
 * `_meta["x402/payment"]`) and matches its `accepted` terms against the route's.
 */
export function matchPayment(parsed: unknown, accepts: readonly PaymentRequirements[]): DecodeResult {
  if (typeof parsed !== 'object' || parsed === null) return { ok: false, reason: 'invalid_payload', message: 'payment payload is not an object' };
  const p = parsed as Record<string, unknown>;
  if (p.x402Version !== 2) return { ok: false, reason: 'invalid_x402_version', message: 'only x402Version 2 payments are accepted' };
  if (typeof p.accepted !== 'object' || p.accepted === null) return { ok: false, reason: 'invalid_payload', message: 'payment payload has no accepted terms' };
  if (typeof p.payload !== 'object' || p.payload === null) return { ok: false, reason: 'invalid_payload', message: 'payment payload has no payload object' };
  const accepted = p.accepted as Record<string, unknown>;
  const requirements = accepts.find((a) => sameTerms(a, accepted));
  if (!requirements) {
    const scheme = accepts.some((a) => a.scheme === accepted.scheme);
    const network = accepts.some((a) => a.network === accepted.network);
    const reason = !scheme ? 'unsupported_scheme' : !network ? 'invalid_network' : 'invalid_payment_requirements';
    return { ok: false, reason, message: "the accepted terms are not this route's terms" };
  }
  return { ok: true, payment: p as unknown as PaymentPayload, requirements };
}

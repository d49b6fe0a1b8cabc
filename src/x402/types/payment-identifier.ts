/**
 * The x402 `payment-identifier` extension: a client-chosen idempotency key in
 * `PaymentPayload.extensions["payment-identifier"].info.id` (16-128 characters of [A-Za-z0-9_-]).
 * Same id and same payload: the cached answer again; same id, other payload: 409.
 */
import { createHash } from 'node:crypto';
import type { PaymentPayload } from './x402-types.ts';

export const PAYMENT_IDENTIFIER = 'payment-identifier';
const PAYMENT_ID_RE = /^[A-Za-z0-9_-]{16,128}$/;

/** What a 402 challenge declares under `extensions` (the id is optional here). */
export const PAYMENT_IDENTIFIER_DECLARATION = {
  info: { required: false },
  schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { required: { type: 'boolean' }, id: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[a-zA-Z0-9_-]+$' } },
    required: ['required'],
  },
} as const;

export type PaymentIdResult = { readonly ok: true; readonly id: string | null } | { readonly ok: false; readonly message: string };

/** The payment id the payload carries: null when absent, an error when present but malformed. */
export function extractPaymentId(payment: PaymentPayload): PaymentIdResult {
  const ext = payment.extensions?.[PAYMENT_IDENTIFIER];
  if (ext === undefined || ext === null) return { ok: true, id: null };
  const id = (ext as { info?: { id?: unknown } }).info?.id;
  if (id === undefined) return { ok: true, id: null };
  if (typeof id !== 'string' || !PAYMENT_ID_RE.test(id))
    return { ok: false, message: 'payment-identifier id must be 16-128 characters of A-Z, a-z, 0-9, _ and -' };
  return { ok: true, id };
}

/**
 * Fingerprint of "the same payload" for idempotency: the accepted terms, the scheme payload and
 * the resource asked for. Extensions are left out: they carry the id itself.
 */
export function paymentFingerprint(payment: PaymentPayload, resourceUrl: string): string {
  return createHash('sha256')
    .update(JSON.stringify([payment.accepted, payment.payload, resourceUrl]))
    .digest('hex');
}

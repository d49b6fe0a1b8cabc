/**
 * The x402 v2 PaymentPayload a paid request carries in `PAYMENT-SIGNATURE`, base64 JSON, in the
 * official client's shape and member order (`x402Version`, `payload`, `extensions`, `resource`,
 * `accepted`), so the service reads a payment sent with the first request exactly as one sent after
 * its 402. What the official client also echoes from a 402 (the route's description, its bazaar
 * declaration) is left out: the service does not read it, and every byte of it rides on every call.
 */
import { randomBytes } from 'node:crypto';
import type { Terms } from './x402-wire.ts';

/** The payment-identifier extension's key (x402), and the form of an id: 16-128 of [A-Za-z0-9_-]. */
export const PAYMENT_IDENTIFIER = 'payment-identifier';
export const PAYMENT_ID_RE = /^[A-Za-z0-9_-]{16,128}$/;

/** A fresh payment id: `pay_` and 32 hex digits (128 random bits), as the official helper makes them. */
export function newPaymentId(): string {
  return `pay_${randomBytes(16).toString('hex')}`;
}

/** The JSON of each option paid under, kept: the same object is paid under call after call. */
const acceptedJson = new WeakMap<Terms, string>();

/**
 * The PAYMENT-SIGNATURE value of a payment for `resourceUrl` under `accepted`, with an id when
 * given. `payloadJson`, when the lane has it, is the payload's own JSON text (the channel lane
 * builds it from kept pieces); the envelope is written around it and the option's JSON is kept,
 * so a call stringifies only what changed. The bytes are those of `JSON.stringify` of the whole
 * object (a unit test holds them equal).
 */
export function encodePaymentHeader(
  accepted: Terms,
  payload: Readonly<Record<string, unknown>>,
  resourceUrl: string,
  paymentId: string | null,
  payloadJson?: string,
): string {
  let terms = acceptedJson.get(accepted);
  if (terms === undefined) {
    terms = JSON.stringify(accepted);
    acceptedJson.set(accepted, terms);
  }
  const extensions = paymentId === null ? '' : `,"extensions":${JSON.stringify({ [PAYMENT_IDENTIFIER]: { info: { required: false, id: paymentId } } })}`;
  const json = `{"x402Version":2,"payload":${payloadJson ?? JSON.stringify(payload)}${extensions},"resource":{"url":${JSON.stringify(resourceUrl)}},"accepted":${terms}}`;
  return Buffer.from(json, 'utf8').toString('base64');
}

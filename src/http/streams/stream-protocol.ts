/**
 * The x402-over-WebSocket profile of the paid streams (docs/streams.md), as data: the limits a
 * stream socket runs under, and the fixed `closing` reasons with their close codes and sentences.
 * No uWS here (stream-sockets.ts holds the sockets).
 */

/** After `paidUntil`, how long a stream keeps running unrenewed; with the wheel's slot (250 ms) a lapse closes within 1 s. */
export const STREAM_GRACE_MS = 750;
/**
 * How long before `paidUntil` the server sends `renew`, ms (capped at the period). Not a whole
 * period: a renew a period ahead comes the moment a one-period window is bought, so every stream
 * would be billed a period beyond what it streams; 2 s is hundreds of voucher round trips.
 */
export const STREAM_RENEW_LEAD_MS = 2_000;
/** How long an unpaid socket may wait before its first payment (the challenge's `maxTimeoutSeconds`), ms. */
export const STREAM_UNPAID_MAX_MS = 60_000;
/** Largest message a stream client may send (a payment: a Solana transaction in JSON is under 4 kB), bytes. */
export const STREAM_MAX_MESSAGE_BYTES = 8192;
/** What uWS itself accepts, above the profile's limit so that a larger one still gets its `closing`, bytes (uWS's hard cap is 16 kB). */
export const STREAM_MAX_FRAME_BYTES = 16 * 1024;
/** Messages a stream client may send in one second (a payment, a resume: a few a period). */
export const STREAM_MAX_MESSAGES_PER_SECOND = 10;
/** Unsent bytes a subscriber may fall behind by before it is cut (`slow_consumer`). */
export const STREAM_MAX_BACKPRESSURE_BYTES = 256 * 1024;
/** A stream socket silent this long is closed; automatic pings keep live ones busy, seconds. */
export const STREAM_IDLE_TIMEOUT_SECONDS = 120;
/** Stream sockets open at once per instance (apart from the feeds'); further upgrades answer 503. */
export const STREAM_MAX_SOCKETS = 1000;
/** Stream sockets one client (an IPv4 address, an IPv6 /64) may hold; further upgrades answer 429. */
export const STREAM_SOCKETS_PER_CLIENT = 20;

/** Why the server closes a stream socket: the `closing` message's `reason`, and the close frame's code and text. */
export const CLOSING_REASONS = {
  lapsed: { code: 4001, message: 'the paid window ended and no payment renewed it' },
  unpaid: { code: 4002, message: 'no payment came within 60 s of the offer' },
  slow_consumer: { code: 4003, message: 'the client fell too far behind the stream; reconnect with the last payment to resume the paid window' },
  payment_refused: { code: 4004, message: 'the payment was refused' },
  flood: { code: 4005, message: 'too many or too large messages; a client sends a payment a period' },
  bad_message: { code: 4006, message: 'the message is not one of this profile' },
  superseded: { code: 4007, message: "another socket resumed this socket's paid window with the same payment" },
  shutting_down: { code: 4008, message: 'the service is shutting down; reconnect with the last payment to resume the paid window' },
} as const;

export type ClosingReason = keyof typeof CLOSING_REASONS;

/** The `closing` message: the reason, its fixed sentence (or the payment refusal's own), and the x402 reason of a refused payment. */
export function closingText(reason: ClosingReason, message?: string, error?: string): string {
  return JSON.stringify({ type: 'closing', reason, message: message ?? CLOSING_REASONS[reason].message, ...(error ? { error } : {}) });
}

/** A client message the profile knows: a payment (its x402 PaymentPayload), or null. */
export function paymentOf(text: string): { readonly payment: unknown } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const m = parsed as { type?: unknown; payment?: unknown };
  if (m.type !== 'payment' || typeof m.payment !== 'object' || m.payment === null) return null;
  return { payment: m.payment };
}

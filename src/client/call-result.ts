/**
 * What `client.call` resolves to: the answer typed by the route's response schema (the catalog's
 * TypeBox schemas, the same ones /openapi.json publishes), with its receipt and settlement; or,
 * for anything but a 200, the service's status, reason and sentence; or a refusal made here before
 * anything was signed (`status: null`). Faults (the service unreachable, a deadline passed) are
 * thrown, as Node reports them.
 */
import type { PaidPath, ResponseOf } from '../catalog/endpoints.ts';
import type { CheckReport } from '../receipt-checks/receipt-check.ts';
import type { HttpAnswer } from './client-http.ts';
import type { LaneName } from './payment-lane.ts';
import { type DecodedReceipt, decodeReceiptHeader, type SavedReceipt, type ServiceReceipt } from './receipt-files.ts';
import { decodePaymentRequired, decodePaymentResponse, type PaymentResponse, type Terms } from './x402-wire.ts';

/** How the call was paid, when a payment was sent. */
export interface PaymentSent {
  readonly lane: LaneName;
  readonly terms: Terms;
  /** The payment-identifier id the payment carried, or null. */
  readonly paymentId: string | null;
  /** What a channel deposit moved into the channel, units (0 otherwise). */
  readonly depositUnits: bigint;
}

/** Fields of every result. */
interface ResultBase {
  /** Requests this call made to the service (1 for a call paid with its first request). */
  readonly roundTrips: number;
  readonly payment: PaymentSent | null;
  readonly headers: Readonly<Record<string, string>>;
  /** The exact body bytes (a receipt covers them). */
  readonly bytes: Uint8Array;
}

/** A paid 200. */
export interface PaidAnswer<P extends PaidPath> extends ResultBase {
  readonly ok: true;
  readonly status: 200;
  readonly body: ResponseOf<P>;
  /** The X-Service-Receipt, decoded (null if the answer had none readable). */
  readonly receipt: ServiceReceipt | null;
  readonly receiptText: string | null;
  readonly paymentResponse: PaymentResponse | null;
  /** A Solana payment answered before its confirmation (PAYMENT-RESPONSE `extra.settlement: "submitted"`). */
  readonly early: boolean;
  /** Where the receipt and body were saved (with `receipts.dir`), or null. */
  readonly saved: SavedReceipt | null;
  /** Why saving failed (the call was paid and answered all the same), or null. */
  readonly saveError: string | null;
  /** The offline check of the receipt (with `receipts.verify`), or null. */
  readonly verification: CheckReport | null;
}

/** Anything but a paid 200: the service's answer, or a refusal here (`status: null`, nothing signed). */
export interface NotPaid extends ResultBase {
  readonly ok: false;
  readonly status: number | null;
  /** The service's error code (a 402's x402 reason), or this client's refusal. */
  readonly reason: string;
  readonly message: string;
  readonly body: unknown;
  readonly receipt: null;
  readonly paymentResponse: PaymentResponse | null;
  /** The terms of a refusal made here (the price asked, its network and asset), or null. */
  readonly refusedTerms: Terms | null;
}

export type CallResult<P extends PaidPath> = PaidAnswer<P> | NotPaid;

const NO_BYTES = new Uint8Array(0);

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A refusal made here, before anything was signed or sent for it. */
export function refusedHere(reason: string, message: string, terms: Terms | null, roundTrips: number): NotPaid {
  return {
    ok: false,
    status: null,
    reason,
    message,
    body: null,
    receipt: null,
    paymentResponse: null,
    refusedTerms: terms,
    roundTrips,
    payment: null,
    headers: {},
    bytes: NO_BYTES,
  };
}

/** The service's answer other than a 200, with its code and sentence (the body's, else the 402 challenge's). */
export function notPaid(answer: HttpAnswer, payment: PaymentSent | null, roundTrips: number): NotPaid {
  const body = parseJson(answer.bytes);
  const fields = (typeof body === 'object' && body !== null ? body : {}) as { error?: unknown; message?: unknown };
  const challengeError = answer.status === 402 ? decodePaymentRequired(answer.headers['payment-required'])?.error : undefined;
  const error = typeof fields.error === 'string' ? fields.error : (challengeError ?? `http_${answer.status}`);
  const [code = error, sentence] = error.split(/:\s*(.*)/s);
  return {
    ok: false,
    status: answer.status,
    reason: code,
    message: typeof fields.message === 'string' ? fields.message : (sentence ?? `HTTP ${answer.status}`),
    body,
    receipt: null,
    paymentResponse: decodePaymentResponse(answer.headers['payment-response']),
    refusedTerms: null,
    roundTrips,
    payment,
    headers: answer.headers,
    bytes: answer.bytes,
  };
}

/** What the receipt hooks give back for a paid 200. */
export interface ReceiptOutcome {
  readonly saved: SavedReceipt | null;
  readonly saveError: string | null;
  readonly verification: CheckReport | null;
}

/** A paid 200 as the caller reads it. */
export function paidAnswer<P extends PaidPath>(
  answer: HttpAnswer,
  payment: PaymentSent | null,
  roundTrips: number,
  given: DecodedReceipt | null | undefined,
  outcome: ReceiptOutcome,
): PaidAnswer<P> {
  const paymentResponse = decodePaymentResponse(answer.headers['payment-response']);
  // Undefined: nothing needed it yet (no saving, no check); decoded when first read, once.
  let decoded = given;
  const receipt = (): DecodedReceipt | null => {
    if (decoded === undefined) decoded = decodeReceiptHeader(answer.headers['x-service-receipt']);
    return decoded;
  };
  return {
    ok: true,
    status: 200,
    body: parseJson(answer.bytes) as ResponseOf<P>,
    get receipt() {
      return receipt()?.receipt ?? null;
    },
    get receiptText() {
      return receipt()?.text ?? null;
    },
    paymentResponse,
    early: paymentResponse?.extra?.settlement === 'submitted',
    ...outcome,
    roundTrips,
    payment,
    headers: answer.headers,
    bytes: answer.bytes,
  };
}

export { decodeReceiptHeader };

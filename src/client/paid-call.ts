/**
 * One paid call, as the client makes it: the route's terms known (learned once), the payment goes
 * with the first request, so a call is one round trip. A 402 is read for what it says: terms that
 * changed (an option gone or different: a price, an offer, a rotated key) are learned and the call
 * is paid once more; a channel's corrective 402 resyncs the channel and the call is paid once more;
 * anything else is the answer. A lost answer (a connection cut, a deadline) and the service's "not
 * yet" (`settlement_pending`, a busy channel or payer, 503) are retried with the identical payment
 * header, which the service answers with the same 200 and no second charge; the payment-identifier
 * extension makes the same hold by id.
 */
import type { PaidPath } from '../catalog/endpoints.ts';
import { type CallResult, notPaid, type PaymentSent, paidAnswer, type ReceiptOutcome, refusedHere } from './call-result.ts';
import type { ClientHttp, HttpAnswer } from './client-http.ts';
import { encodePaymentHeader, newPaymentId, PAYMENT_ID_RE } from './payment-header.ts';
import type { LaneName, PaymentLane } from './payment-lane.ts';
import type { DecodedReceipt } from './receipt-files.ts';
import type { ReceiptKeeper } from './receipt-keeper.ts';
import { type RouteTerms, sameTerms, type TermsBook } from './route-terms.ts';
import type { SpendLedger } from './spend-limits.ts';
import { decodePaymentRequired, type Terms } from './x402-wire.ts';
import { decodeReceiptHeader } from './receipt-files.ts';

/** Reasons of a 402 or 503 that mean "not yet": the identical payment is sent again. */
const NOT_YET = new Set([
  'settlement_pending',
  'duplicate_settlement',
  'payer_busy',
  'invalid_batch_settlement_evm_channel_busy',
  'payments_full',
  'storage_unavailable',
]);
/** Node's codes of a request whose answer was lost on the way (the payment may have been received). */
const LOST = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET']);
const BACKOFF_MS = 250;
const NO_RECEIPT_WORK: ReceiptOutcome = { saved: null, saveError: null, verification: null };
const BACKOFF_MAX_MS = 2000;

/** Per-call options. */
export interface CallOptions {
  /** The payment-identifier id to send (16-128 of [A-Za-z0-9_-]); default: a fresh one on the `exact` lanes. */
  readonly paymentId?: string;
  /** Pay on this lane only. */
  readonly lane?: LaneName;
  readonly signal?: AbortSignal;
}

export interface PaidCallerConfig {
  readonly http: ClientHttp;
  /** The service's base URL, for the payment's `resource.url`. */
  readonly base: string;
  readonly book: TermsBook;
  readonly lanes: readonly PaymentLane[];
  readonly ledger: SpendLedger;
  readonly timeoutMs: number;
  readonly retries: number;
  /** Which lanes send a payment-identifier by default. */
  readonly idLanes: ReadonlySet<LaneName>;
  /** Saves and checks a paid answer's receipt (null: neither; the receipt is decoded when read). */
  readonly receipts: ReceiptKeeper;
}

const reasonOf = (answer: HttpAnswer): string => {
  try {
    const error = (JSON.parse(answer.bytes.toString('utf8')) as { error?: unknown }).error;
    return typeof error === 'string' ? (error.split(':')[0] ?? '') : '';
  } catch {
    return '';
  }
};
const notYet = (a: HttpAnswer): boolean => (a.status === 402 || a.status === 503) && NOT_YET.has(reasonOf(a));
const lost = (err: unknown): boolean => err instanceof Error && (err.name === 'TimeoutError' || LOST.has((err as NodeJS.ErrnoException).code ?? ''));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `/v1/epoch?rate=both` from a path and a query object (its order kept). */
export function pathAndQuery(path: string, query: Readonly<Record<string, string | number | boolean>> = {}): string {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return qs ? `${path}?${qs}` : path;
}

export function createPaidCaller(config: PaidCallerConfig) {
  const { http, book, ledger } = config;

  /** The payment header sent, and again while the answer is lost or "not yet"; the last answer and the requests made. */
  async function send(resource: string, header: string, signal?: AbortSignal): Promise<{ answer: HttpAnswer; trips: number }> {
    for (let attempt = 0, trips = 1; ; attempt++, trips++) {
      const wait = Math.min(BACKOFF_MS * 2 ** attempt, BACKOFF_MAX_MS);
      let answer: HttpAnswer;
      try {
        answer = await http.get(resource, { 'payment-signature': header }, config.timeoutMs, signal);
        trips += (answer.sends ?? 1) - 1;
      } catch (err) {
        if (attempt >= config.retries || !lost(err) || signal?.aborted) throw err;
        await sleep(wait);
        continue;
      }
      if (attempt >= config.retries || !notYet(answer) || signal?.aborted) return { answer, trips };
      await sleep(wait);
    }
  }

  function choose(accepts: readonly Terms[], only?: LaneName): { lane: PaymentLane; terms: Terms } | null {
    for (const lane of config.lanes) {
      if (only && lane.name !== only) continue;
      const terms = lane.pick(accepts);
      if (terms) return { lane, terms };
    }
    return null;
  }

  /** The route's terms: known, or taught by an unpaid request's 402 (that answer, when it is not a 402 with terms). */
  async function termsFor(path: string, resource: string, signal?: AbortSignal): Promise<{ route: RouteTerms; trips: number } | HttpAnswer> {
    const known = await book.termsOf(path);
    if (known) return { route: known, trips: 0 };
    const answer = await http.get(resource, {}, config.timeoutMs, signal);
    if (answer.status !== 402) return answer;
    const learned = book.learn(path, decodePaymentRequired(answer.headers['payment-required']) ?? { x402Version: 0, accepts: [] });
    return learned ? { route: learned, trips: answer.sends ?? 1 } : answer;
  }

  /** Pays one call under `route`; `retry` allows one more payment after a 402 that changed the terms or resynced a channel. */
  async function pay<P extends PaidPath>(
    path: P,
    resource: string,
    route: RouteTerms,
    trips: number,
    options: CallOptions,
    retry: boolean,
  ): Promise<CallResult<P>> {
    const chosen = choose(route.accepts, options.lane);
    if (!chosen)
      return refusedHere(
        'no_payment_option',
        `${path} offers no option this client can pay (${config.lanes.map((l) => l.name).join(', ') || 'no key given'})`,
        null,
        trips,
      );
    const { lane, terms } = chosen;
    const held = ledger.hold(BigInt(terms.amount));
    if (!held.ok) return refusedHere(held.reason, held.message, terms, trips);
    const prepared = await lane.prepare(terms).catch((err: unknown) => {
      held.release(false);
      throw err;
    });
    if (!prepared.ok) {
      held.release(false);
      return refusedHere(prepared.reason, prepared.message, terms, trips);
    }
    const paymentId = options.paymentId ?? (config.idLanes.has(lane.name) ? newPaymentId() : null);
    const payment: PaymentSent = { lane: lane.name, terms, paymentId, depositUnits: prepared.payment.depositUnits };
    let answer: HttpAnswer | null = null;
    let resynced = false;
    try {
      const sent = await send(
        resource,
        encodePaymentHeader(terms, prepared.payment.payload, `${config.base}${resource}`, paymentId, prepared.payment.payloadJson),
        options.signal,
      );
      answer = sent.answer;
      trips += sent.trips;
    } finally {
      resynced = (await prepared.payment.finish(answer)).resynced;
      // An answer that never came, or a settlement still pending, may have charged: it stays counted.
      held.release(answer === null || answer.status === 200 || reasonOf(answer) === 'settlement_pending');
    }
    if (answer.status === 200) return paidAnswer<P>(answer, payment, trips, ...(await receiptOf(answer, resource, terms)));
    if (answer.status === 402 && retry) {
      if (resynced) return pay(path, resource, route, trips, options, false);
      const challenge = decodePaymentRequired(answer.headers['payment-required']);
      if (challenge && challenge.accepts.length > 0 && !challenge.accepts.some((t) => sameTerms(t, terms))) {
        const learned = book.learn(path, challenge);
        if (learned) return pay(path, resource, learned, trips, options, false);
      }
    }
    return notPaid(answer, payment, trips);
  }

  async function receiptOf(answer: HttpAnswer, resource: string, terms: Terms | null): Promise<[DecodedReceipt | null | undefined, ReceiptOutcome]> {
    if (config.receipts === null) return [undefined, NO_RECEIPT_WORK];
    const decoded = decodeReceiptHeader(answer.headers['x-service-receipt']);
    return [decoded, await config.receipts(decoded, answer, resource, terms)];
  }

  return async function call<P extends PaidPath>(
    path: P,
    query?: Readonly<Record<string, string | number | boolean>>,
    options: CallOptions = {},
  ): Promise<CallResult<P>> {
    if (options.paymentId !== undefined && !PAYMENT_ID_RE.test(options.paymentId))
      throw new TypeError('paymentId must be 16-128 characters of A-Z, a-z, 0-9, _ and -');
    const resource = pathAndQuery(path, query);
    const known = await termsFor(path, resource, options.signal);
    if ('route' in known) return pay(path, resource, known.route, known.trips, options, true);
    if (known.status === 200) return paidAnswer<P>(known, null, 1, ...(await receiptOf(known, resource, null)));
    return notPaid(known, null, 1);
  };
}

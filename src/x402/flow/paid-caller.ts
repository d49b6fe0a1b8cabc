/**
 * One paid call, whatever carried it (an HTTP GET or an MCP tool call), in the order of
 * docs/contract.md#paid-call-flow: validate the query (400 before any challenge), refuse while paid
 * calls are stopped (503), answer the 402 challenge when no payment came, match the payment's terms
 * to the route's, and hand it to the one PaymentProcessor, which charges only for a 200. Both
 * transports share this path, so they share the replay guard, the pending settlements and the
 * ledger: one payment buys one answer over either.
 */
import type { EndpointEntry } from '../../catalog/endpoints.ts';
import { validateQuery } from '../../catalog/validate-query.ts';
import { errorReply, type HttpReply } from '../../errors.ts';
import type { PaidHandler, PaidHandlerLookup } from '../../intel/handler-group.ts';
import { poolBusyReply } from '../../pool/worker-pool.ts';
import { decodePayment, matchPayment, type DecodeResult } from './decode-payment.ts';
import type { PaymentProcessor } from './payment-processor.ts';
import type { ChallengeBuilder } from '../delivery/payment-terms.ts';
import { PAID_ANSWER_HEADERS } from '../delivery/paid-delivery.ts';

export interface PaidCallerConfig {
  readonly challenges: ReadonlyMap<string, ChallengeBuilder>;
  readonly handlers: PaidHandlerLookup;
  readonly processor: PaymentProcessor | null;
  /**
   * Why paid calls are refused right now (the kill switch, or a ledger that cannot write), or
   * null. While set, every paid call answers 503 before any payment is taken.
   */
  readonly stopped?: () => string | null;
  /** The per-client limits of calls that carry a payment; none: no limits. */
  readonly admission?: PaidAdmission;
  /** True while the CPU pool's queue is full: a paid call answers 503 `busy` before its payment is verified. */
  readonly busy?: () => boolean;
}

/**
 * How a call that carried a matching payment ended: paid (a 200 its payment bought now), refused
 * for its payment or request, or neither (a fault of ours, or the kept 200 of an earlier payment).
 */
export type PaymentOutcome = 'paid' | 'failed' | 'neutral';

/**
 * The per-client limits a call with a payment passes (the transport's own limit skipped it): a
 * payment that does not decode or match the route's terms counts like an unpaid call; a matching
 * one is admitted while the client's failed payments are within their limit, and its outcome
 * is reported once known.
 */
export interface PaidAdmission {
  unmatched(client: string): HttpReply | null;
  matched(client: string): HttpReply | null;
  ended(client: string, outcome: PaymentOutcome): void;
}

/** The payment a call carried: the HTTP header value, the MCP `_meta` object, or none. */
export type SentPayment = { readonly header: string } | { readonly object: unknown } | null;

/**
 * A call to a paid route as its transport received it (an HTTP GET, an MCP tool call), before its
 * payment is read. Not yet a PaidCall, and a type of its own for that: it may carry no payment (a
 * 402 answers it) or one that does not decode or match the route's terms; only a matching one
 * becomes the PaidCall the rest of the payment path carries.
 */
export interface PaidAttempt {
  readonly entry: EndpointEntry;
  /** The caller's address as the front end saw it (behind trusted proxies, the forwarded one). */
  readonly client: string;
  /** The query string (without `?`) the answer is for; it is also the receipt's `resource`. */
  readonly query: string;
  /** The resource URL the 402 challenge names: the request URL, or `mcp://tool/<name>`. */
  readonly resourceUrl: string;
  readonly payment: SentPayment;
  /**
   * Fires when the caller goes away: nothing is settled for an answer nobody receives. Read only
   * when a payment is processed, so a transport may make it lazily (the HTTP front end does).
   */
  readonly signal: AbortSignal;
}

/**
 * Serves paid calls: the reply is an HTTP reply either transport maps onto its own wire. Answers
 * that need no I/O (400, 503, the 402 challenge) come back synchronously; a payment's, as a promise.
 */
export type PaidCaller = (attempt: PaidAttempt) => HttpReply | Promise<HttpReply>;

/** The 200 of a paid endpoint: its handler's answer as JSON. */
export function answerWith(entry: EndpointEntry, handler: PaidHandler | undefined, query: Readonly<Record<string, unknown>>, signal: AbortSignal) {
  return async (): Promise<HttpReply> => {
    if (!handler) return errorReply({ error: 'upstream_unavailable', message: `${entry.path} has no data source in this deployment` });
    const body = await handler(query, signal);
    return { status: 200, headers: PAID_ANSWER_HEADERS, body: JSON.stringify(body) };
  };
}

function decodeSent(payment: NonNullable<SentPayment>, builder: ChallengeBuilder): DecodeResult {
  return 'header' in payment ? decodePayment(payment.header, builder.accepts, builder.echoedExtensions?.()) : matchPayment(payment.object, builder.accepts);
}

/** Query strings whose verdict is kept per route (oldest dropped first). */
export const MAX_KEPT_VERDICTS = 512;
/** Longer query strings are judged every time: a hostile caller's unique 8 kB queries must not fill memory. */
const MAX_KEPT_QUERY_CHARS = 256;

/**
 * Whether a route's query string is valid, and the frozen 400 when it is not: a pure function of
 * the string, kept for the strings seen last, since unpaid callers (a bot polling for terms, a
 * client retrying a typo) send the same ones again and again. The parsed value is not kept: only a
 * paid call needs it, and each paid call gets its own.
 */
function createQueryVerdicts(): (entry: EndpointEntry, query: string) => HttpReply | null {
  const byRoute = new Map<string, Map<string, HttpReply | null>>();
  return (entry, query) => {
    let kept = byRoute.get(entry.path);
    if (!kept) {
      kept = new Map();
      byRoute.set(entry.path, kept);
    }
    const known = kept.get(query);
    if (known !== undefined) return known;
    const checked = validateQuery(entry, query);
    const verdict = checked.ok ? null : freezeReply(errorReply(checked.error));
    if (query.length > MAX_KEPT_QUERY_CHARS) return verdict;
    if (kept.size >= MAX_KEPT_VERDICTS) kept.delete(kept.keys().next().value!);
    kept.set(query, verdict);
    return verdict;
  };
}

const freezeReply = (reply: HttpReply): HttpReply => Object.freeze({ ...reply, headers: Object.freeze({ ...reply.headers }) });

/**
 * A 200 is a payment of this call only when its handler ran: the same payment again gets its kept
 * answer with no new charge, and must not count as paid (else repeating one payment would refill
 * the free bucket for ever).
 */
const outcomeOf = (status: number, answered: boolean): PaymentOutcome =>
  status === 200 ? (answered ? 'paid' : 'neutral') : status >= 500 ? 'neutral' : 'failed';

/** Creates the caller over the routes' challenges, handlers and the payment processor. */
export function createPaidCaller(config: PaidCallerConfig): PaidCaller {
  const verdictOf = createQueryVerdicts();
  const admission = config.admission;

  function serve(attempt: PaidAttempt, builder: ChallengeBuilder, decoded: DecodeResult | null, onAnswer?: () => void): HttpReply | Promise<HttpReply> {
    const { entry, query, resourceUrl } = attempt;
    const refused = verdictOf(entry, query);
    if (refused !== null) return refused;
    const stopped = config.stopped?.() ?? null;
    if (stopped !== null) return errorReply({ error: 'service_stopped', message: stopped });
    if (decoded === null) return builder.reply(resourceUrl);
    if (config.busy?.()) return poolBusyReply();
    const checked = validateQuery(entry, query);
    if (!checked.ok) return errorReply(checked.error);
    if (!decoded.ok) return builder.reply(resourceUrl, `${decoded.reason}: ${decoded.message}`);
    if (!config.processor) return builder.reply(resourceUrl, `invalid_network: no settlement path is configured for ${decoded.requirements.network}`);
    const handler: PaidHandler | undefined = config.handlers[entry.path as keyof PaidHandlerLookup];
    const signal = attempt.signal;
    const answer = answerWith(entry, handler, checked.value, signal);
    return config.processor.processPaidCall({
      entry,
      payment: decoded.payment,
      requirements: decoded.requirements,
      resourceUrl,
      request: { path: entry.path, query, signal, client: attempt.client },
      answer: onAnswer
        ? () => {
            onAnswer();
            return answer();
          }
        : answer,
    });
  }

  /** A call with a payment, under the client's limits: the outcome of a matching one is reported when known. */
  function admitted(attempt: PaidAttempt, builder: ChallengeBuilder, decoded: DecodeResult, limits: PaidAdmission): HttpReply | Promise<HttpReply> {
    const client = attempt.client;
    if (!decoded.ok) return limits.unmatched(client) ?? serve(attempt, builder, decoded);
    const refused = limits.matched(client);
    if (refused) return refused;
    let answered = false;
    let reply: HttpReply | Promise<HttpReply>;
    try {
      reply = serve(attempt, builder, decoded, () => {
        answered = true;
      });
    } catch (err) {
      limits.ended(client, 'neutral');
      throw err;
    }
    if (!(reply instanceof Promise)) {
      limits.ended(client, outcomeOf(reply.status, answered));
      return reply;
    }
    return reply.then(
      (r) => {
        limits.ended(client, outcomeOf(r.status, answered));
        return r;
      },
      (err: unknown) => {
        limits.ended(client, 'neutral');
        throw err;
      },
    );
  }

  return (attempt) => {
    const builder = config.challenges.get(attempt.entry.path)!;
    if (attempt.payment === null) return serve(attempt, builder, null);
    const decoded = decodeSent(attempt.payment, builder);
    return admission ? admitted(attempt, builder, decoded, admission) : serve(attempt, builder, decoded);
  };
}

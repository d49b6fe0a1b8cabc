/**
 * Routes of the paid endpoints, built from the catalog: validate the query (400 before any
 * challenge), then answer the 402 challenge or hand a decoded payment to the payment processor,
 * which runs the handler and settles only for a 200 (docs/contract.md#paid-call-flow).
 */
import { CATALOG, type EndpointEntry } from '../catalog/endpoints.ts';
import { validateQuery } from '../catalog/validate-query.ts';
import { decodePayment, paymentHeader, type PaymentPayload } from '../x402/decode-payment.ts';
import type { ChallengeBuilder, PaymentRequirements } from '../x402/payment-terms.ts';
import type { SupportedKind } from './free-routes.ts';
import { errorReply, type HttpReply, type HttpRequestData, type Route } from './server.ts';

/** Computes the JSON answer of a paid endpoint from its validated query. */
export type PaidHandler = (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => Promise<unknown>;

export interface PaidCall {
  readonly entry: EndpointEntry;
  readonly payment: PaymentPayload;
  readonly requirements: PaymentRequirements;
  readonly resourceUrl: string;
  readonly request: HttpRequestData;
  /** Produces the answer; the processor settles only when it is a 200. */
  readonly answer: () => Promise<HttpReply>;
}

/** Verifies and settles payments (the payments issue provides it). */
export interface PaymentProcessor {
  process(call: PaidCall): Promise<HttpReply>;
  /** The x402 kinds this processor can settle now, and their signers (/facilitator/supported). */
  supported(): { kinds: readonly SupportedKind[]; signers: Readonly<Record<string, readonly string[]>> };
}

export interface PaidRoutesConfig {
  /** Public base URL; known only after listen when the port is ephemeral. */
  readonly baseUrl: () => string;
  readonly challenges: ReadonlyMap<string, ChallengeBuilder>;
  readonly handlers: Readonly<Partial<Record<string, PaidHandler>>>;
  readonly processor: PaymentProcessor | null;
  /**
   * Why paid calls are refused right now (the kill switch, or a ledger that cannot write), or
   * null. While set, every paid call answers 503 before any payment is taken.
   */
  readonly stopped?: () => string | null;
}

function challengeReply(builder: ChallengeBuilder, resourceUrl: string, error?: string): HttpReply {
  const c = builder.build(resourceUrl, error);
  return { status: 402, headers: { 'Content-Type': 'application/json', 'PAYMENT-REQUIRED': c.header }, body: c.body };
}

function answerWith(entry: EndpointEntry, handler: PaidHandler | undefined, query: Readonly<Record<string, unknown>>, signal: AbortSignal) {
  return async (): Promise<HttpReply> => {
    if (!handler) return errorReply(502, { error: 'upstream_unavailable', message: `${entry.path} has no data source in this deployment` });
    const body = await handler(query, signal);
    return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  };
}

function paidRoute(entry: EndpointEntry, config: PaidRoutesConfig): Route {
  const builder = config.challenges.get(entry.path)!;
  const handler = config.handlers[entry.path];
  return {
    method: 'GET',
    path: entry.path,
    async handler(req) {
      const checked = validateQuery(entry, req.query);
      if (!checked.ok) return errorReply(400, checked.error);
      const stopped = config.stopped?.() ?? null;
      if (stopped !== null) return errorReply(503, { error: 'service_stopped', message: stopped });
      const resourceUrl = `${config.baseUrl()}${req.path}${req.query ? `?${req.query}` : ''}`;
      const header = paymentHeader(req.headers);
      if (header === null) return challengeReply(builder, resourceUrl);
      const decoded = decodePayment(header, builder.accepts);
      if (!decoded.ok) return challengeReply(builder, resourceUrl, `${decoded.reason}: ${decoded.message}`);
      if (!config.processor) return challengeReply(builder, resourceUrl, `invalid_network: no settlement path is configured for ${decoded.requirements.network}`);
      const answer = answerWith(entry, handler, checked.value, req.signal);
      return config.processor.process({ entry, payment: decoded.payment, requirements: decoded.requirements, resourceUrl, request: req, answer });
    },
  };
}

/** One route per catalog entry. */
export function createPaidRoutes(config: PaidRoutesConfig): Route[] {
  return CATALOG.map((entry) => paidRoute(entry, config));
}

/**
 * Routes of the paid endpoints, built from the catalog: validate the query (400 before any
 * challenge), then answer the 402 challenge or hand a decoded payment to the payment processor,
 * which runs the handler and settles only for a 200 (docs/contract.md#paid-call-flow).
 */
import { CATALOG, type EndpointEntry } from '../catalog/endpoints.ts';
import { validateQuery } from '../catalog/validate-query.ts';
import { errorReply, type HttpReply } from '../errors.ts';
import type { PaidHandler, PaidHandlers } from '../intel/handler-group.ts';
import { decodePayment, paymentHeader } from '../x402/decode-payment.ts';
import type { PaymentProcessor } from '../x402/payment-processor.ts';
import type { ChallengeBuilder } from '../x402/payment-terms.ts';
import type { Route } from './route.ts';

export interface PaidRoutesConfig {
  /** Public base URL; known only after listen when the port is ephemeral. */
  readonly baseUrl: () => string;
  readonly challenges: ReadonlyMap<string, ChallengeBuilder>;
  readonly handlers: PaidHandlers;
  readonly processor: PaymentProcessor | null;
  /**
   * Why paid calls are refused right now (the kill switch, or a ledger that cannot write), or
   * null. While set, every paid call answers 503 before any payment is taken.
   */
  readonly stopped?: () => string | null;
}

function answerWith(entry: EndpointEntry, handler: PaidHandler | undefined, query: Readonly<Record<string, unknown>>, signal: AbortSignal) {
  return async (): Promise<HttpReply> => {
    if (!handler) return errorReply({ error: 'upstream_unavailable', message: `${entry.path} has no data source in this deployment` });
    const body = await handler(query, signal);
    return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  };
}

function paidRoute(entry: EndpointEntry, config: PaidRoutesConfig): Route {
  const builder = config.challenges.get(entry.path)!;
  const handler: PaidHandler | undefined = config.handlers[entry.path as keyof PaidHandlers];
  return {
    method: 'GET',
    path: entry.path,
    async handler(req) {
      const checked = validateQuery(entry, req.query);
      if (!checked.ok) return errorReply(checked.error);
      const stopped = config.stopped?.() ?? null;
      if (stopped !== null) return errorReply({ error: 'service_stopped', message: stopped });
      const resourceUrl = `${config.baseUrl()}${req.path}${req.query ? `?${req.query}` : ''}`;
      const header = paymentHeader(req.headers);
      if (header === null) return builder.reply(resourceUrl);
      const decoded = decodePayment(header, builder.accepts);
      if (!decoded.ok) return builder.reply(resourceUrl, `${decoded.reason}: ${decoded.message}`);
      if (!config.processor) return builder.reply(resourceUrl, `invalid_network: no settlement path is configured for ${decoded.requirements.network}`);
      const answer = answerWith(entry, handler, checked.value, req.signal);
      return config.processor.process({ entry, payment: decoded.payment, requirements: decoded.requirements, resourceUrl, request: req, answer });
    },
  };
}

/** One route per catalog entry. */
export function createPaidRoutes(config: PaidRoutesConfig): Route[] {
  return CATALOG.map((entry) => paidRoute(entry, config));
}

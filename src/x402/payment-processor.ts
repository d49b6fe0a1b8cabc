/**
 * The PaymentProcessor of the paid routes (DESIGN §3 steps 5-8): pick the network's exact scheme,
 * honour the payment-identifier extension, claim the payment against replays, verify, compute the
 * answer, settle only when the answer is a 200, record the settlement durably, then answer with
 * `PAYMENT-RESPONSE`. A caller is charged only for a 200 and one payment buys one answer.
 */
import { toErrorResponse } from '../errors.ts';
import { RECEIPT_HEADER } from '../trust/receipt.ts';
import type { ReceiptIssuer } from '../trust/receipt-issuer.ts';
import type { SupportedKind } from '../http/free-routes.ts';
import type { PaidCall, PaymentProcessor } from '../http/paid-routes.ts';
import { errorReply, type HttpReply } from '../http/server.ts';
import type { ExactScheme, SettleResult } from './exact-scheme.ts';
import { createIdempotencyCache, IDEMPOTENCY_TTL_MS } from './idempotency-cache.ts';
import type { ChallengeBuilder } from './payment-terms.ts';
import { extractPaymentId, paymentFingerprint } from './payment-identifier.ts';
import type { ReplayGuard } from './replay-guard.ts';

export interface PaymentProcessorConfig {
  readonly schemes: readonly ExactScheme[];
  /** Signs the receipt and appends the ledger entry durably before the 200 leaves (SPEC 2.4, 4.4). */
  readonly receipts?: Pick<ReceiptIssuer, 'issue'>;
  readonly replayGuard: ReplayGuard;
  /** The route's challenge builder, for 402 answers that name the reason. */
  readonly challengeFor: (path: string) => ChallengeBuilder;
  readonly idempotencyTtlMs?: number;
}

/** base64 JSON x402 SettleResponse for the `PAYMENT-RESPONSE` header. */
export function paymentResponseHeader(settled: SettleResult): string {
  const body = { success: settled.success, transaction: settled.transaction, network: settled.network, payer: settled.payer ?? '' };
  return Buffer.from(JSON.stringify(body)).toString('base64');
}

/** Creates the processor over the registered schemes (one per network). */
export function createPaymentProcessor(config: PaymentProcessorConfig): PaymentProcessor {
  const schemes = new Map(config.schemes.map((s) => [s.network, s]));
  const idempotency = createIdempotencyCache<HttpReply>({ ttlMs: config.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS });

  function refuse(call: PaidCall, reason: string, message?: string): HttpReply {
    const c = config.challengeFor(call.entry.path).build(call.resourceUrl, message ? `${reason}: ${message}` : reason);
    return { status: 402, headers: { 'Content-Type': 'application/json', 'PAYMENT-REQUIRED': c.header }, body: c.body };
  }

  async function answerSafely(call: PaidCall): Promise<HttpReply> {
    try {
      return await call.answer();
    } catch (err) {
      const { status, body } = toErrorResponse(err);
      return errorReply(status, body);
    }
  }

  /** Verify, answer, settle for one claimed payment; the claim is released unless settled. */
  async function settleClaimed(call: PaidCall, scheme: ExactScheme, key: string): Promise<HttpReply> {
    let settledOk = false;
    try {
      const verified = await scheme.verify(call.payment, call.requirements, call.request.signal);
      if (!verified.isValid) return refuse(call, verified.invalidReason ?? 'invalid_payment', verified.invalidMessage);
      const answer = await answerSafely(call);
      // Charged only for a 200: any other answer goes out as it is, nothing settled.
      if (answer.status !== 200) return answer;
      const settled = await scheme.settle(call.payment, call.requirements, call.request.signal);
      if (!settled.success) return refuse(call, settled.errorReason ?? 'settlement_failed', settled.errorMessage);
      await config.replayGuard.markSettled(key);
      settledOk = true;
      const issued = await config.receipts?.issue({
        originalUrl: `${call.request.path}${call.request.query ? `?${call.request.query}` : ''}`,
        endpoint: call.entry.path,
        priceUsdcUnits: call.entry.priceUnits,
        network: settled.network,
        body: answer.body,
      });
      const receiptHeader: Record<string, string> = issued ? { [RECEIPT_HEADER]: issued.headerValue } : {};
      return { ...answer, headers: { ...answer.headers, 'PAYMENT-RESPONSE': paymentResponseHeader(settled), ...receiptHeader } };
    } catch (err) {
      const { status, body } = toErrorResponse(err);
      return errorReply(status, body);
    } finally {
      if (!settledOk) config.replayGuard.release(key);
    }
  }

  async function processPayment(call: PaidCall): Promise<HttpReply> {
    const scheme = schemes.get(call.requirements.network);
    if (!scheme) return refuse(call, 'invalid_network', `no settlement path is configured for ${call.requirements.network}`);
    const key = scheme.replayKey(call.payment);
    if (key === null) return refuse(call, 'invalid_payload', 'the payment payload has no transaction this network can read');
    const claim = config.replayGuard.acquire(key);
    if (claim !== 'acquired') return refuse(call, 'duplicate_settlement', claim === 'settled' ? 'this payment was already settled' : 'this payment is being settled by another request');
    return settleClaimed(call, scheme, key);
  }

  return {
    async process(call) {
      const id = extractPaymentId(call.payment);
      if (!id.ok) return refuse(call, 'invalid_payload', id.message);
      if (id.id === null) return processPayment(call);
      const fingerprint = paymentFingerprint(call.payment, call.resourceUrl);
      const cached = idempotency.lookup(id.id, fingerprint);
      if (cached.kind === 'conflict') {
        return errorReply(409, { error: 'payment_identifier_conflict', message: 'this payment-identifier was used with a different payment or resource' });
      }
      // Same id and payload: the first request's answer, without a second charge.
      if (cached.kind === 'hit') return cached.value;
      const reply = processPayment(call);
      idempotency.remember(id.id, fingerprint, reply, (r) => r.status === 200);
      return reply;
    },
    supported() {
      const kinds: SupportedKind[] = [...schemes.values()].map((s) => ({ x402Version: 2, scheme: 'exact', network: s.network, extra: s.supportedExtra }));
      const signers: Record<string, readonly string[]> = {};
      for (const s of schemes.values()) signers[s.network] = s.signers;
      return { kinds, signers };
    },
  };
}

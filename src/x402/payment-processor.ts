/**
 * The PaymentProcessor of the paid routes (docs/contract.md#paid-call-flow steps 4-7): pick the
 * network's exact scheme, honour the payment-identifier extension, claim the payment against
 * replays, verify, compute the answer, settle only when the answer is a 200, record the settlement
 * durably, then answer with `PAYMENT-RESPONSE`. A caller is charged only for a 200 and one payment
 * buys one answer.
 *
 * Once money moved nothing may withhold the answer: a failed replay-record or ledger write after
 * settlement is reported and the 200 still goes out. A settlement that did not reach the
 * commitment in time is recorded (with its answer) before the 402 `settlement_pending` leaves; a
 * retry of the same payment then gets the stored 200 once it landed, exactly once.
 */
import { createHash } from 'node:crypto';
import type { EndpointEntry } from '../catalog/endpoints.ts';
import { errorReply, replyForError, ServiceError, type HttpReply } from '../errors.ts';
import { RECEIPT_HEADER } from '../trust/receipt.ts';
import type { ReceiptIssuer } from '../trust/receipt-issuer.ts';
import type { ExactScheme, SettleResult } from './exact-scheme.ts';
import { createIdempotencyCache, IDEMPOTENCY_TTL_MS } from './idempotency-cache.ts';
import { createPaidAnswerStore, type PaidAnswerStore } from './paid-answer-store.ts';
import type { ChallengeBuilder } from './payment-terms.ts';
import { extractPaymentId, paymentFingerprint } from './payment-identifier.ts';
import { createPendingSettlements, replyOf, storableAnswer, type PendingSettlement, type PendingSettlements } from './pending-settlements.ts';
import type { ReplayGuard } from './replay-guard.ts';
import type { PaymentPayload, PaymentRequirements, SettleResponse, SupportedKind, SupportedKinds } from './x402-types.ts';

/** What of the request the processor reads: where it went, and whether its caller is still there. */
export interface PaidRequest {
  readonly path: string;
  /** Raw query string without `?`. */
  readonly query: string;
  /** Fires when the caller disconnects: nothing is settled for an answer nobody receives. */
  readonly signal: AbortSignal;
}

/** One paid request with a decoded payment whose terms are the route's. */
export interface PaidCall {
  readonly entry: EndpointEntry;
  readonly payment: PaymentPayload;
  readonly requirements: PaymentRequirements;
  readonly resourceUrl: string;
  readonly request: PaidRequest;
  /** Produces the answer; the processor settles only when it is a 200. */
  readonly answer: () => Promise<HttpReply>;
}

/** Verifies and settles payments, and answers a paid call with its reply. */
export interface PaymentProcessor {
  process(call: PaidCall): Promise<HttpReply>;
  /** The x402 kinds this processor can settle now, and their signers (/facilitator/supported). */
  supported(): SupportedKinds;
}

export interface PaymentProcessorConfig {
  readonly schemes: readonly ExactScheme[];
  /** Signs the receipt and appends the ledger entry durably before the 200 leaves (docs/contract.md#receipts). */
  readonly receipts?: Pick<ReceiptIssuer, 'issue'>;
  readonly replayGuard: ReplayGuard;
  /** The route's challenge builder, for 402 answers that name the reason. */
  readonly challengeFor: (path: string) => ChallengeBuilder;
  readonly idempotencyTtlMs?: number;
  /** Durable pending settlements; default: beside the replay record. */
  readonly pending?: PendingSettlements;
  /** Durable payment-identifier answers; default: beside the replay record. */
  readonly paidAnswers?: PaidAnswerStore;
  /** Bookkeeping faults after a settlement (the answer goes out regardless); default stderr. */
  readonly onFault?: (what: string, err: unknown) => void;
}

/** base64 JSON x402 SettleResponse for the `PAYMENT-RESPONSE` header. */
export function paymentResponseHeader(settled: SettleResult): string {
  const body: SettleResponse = { success: settled.success, transaction: settled.transaction, network: settled.network, payer: settled.payer ?? '' };
  return Buffer.from(JSON.stringify(body)).toString('base64');
}

const SETTLEMENT_PENDING = 'settlement_pending';

/**
 * A failed settlement's 402 also carries `PAYMENT-RESPONSE` (success false, the x402 reason), as
 * the x402 HTTP transport shows; the MCP transport hands it on as `x402/payment-response`.
 */
function withSettleFailure(reply: HttpReply, settled: SettleResult): HttpReply {
  const failure = {
    success: false,
    errorReason: settled.errorReason ?? 'settlement_failed',
    transaction: settled.transaction,
    network: settled.network,
    payer: settled.payer ?? '',
  };
  return { ...reply, headers: { ...reply.headers, 'PAYMENT-RESPONSE': Buffer.from(JSON.stringify(failure)).toString('base64') } };
}

function paidOf(call: PaidCall): PendingSettlement['paid'] {
  return {
    originalUrl: `${call.request.path}${call.request.query ? `?${call.request.query}` : ''}`,
    endpoint: call.entry.path,
    priceUsdcUnits: call.entry.priceUnits,
  };
}

function payloadSha256(call: PaidCall): string {
  return createHash('sha256').update(JSON.stringify(call.payment.payload)).digest('hex');
}

function reportFault(what: string, err: unknown): void {
  console.error(`payments: ${what}: ${err instanceof Error ? err.message : String(err)}`);
}

/** Creates the processor over the registered schemes (one per network). */
export function createPaymentProcessor(config: PaymentProcessorConfig): PaymentProcessor {
  const schemes = new Map(config.schemes.map((s) => [s.network, s]));
  const ttlMs = config.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS;
  const idempotency = createIdempotencyCache<HttpReply>({ ttlMs });
  const pending = config.pending ?? createPendingSettlements({ dir: config.replayGuard.dir });
  const paidAnswers = config.paidAnswers ?? createPaidAnswerStore({ dir: config.replayGuard.dir, ttlMs });
  const fault = config.onFault ?? reportFault;

  function refuse(call: PaidCall, reason: string, message?: string): HttpReply {
    return config.challengeFor(call.entry.path).reply(call.resourceUrl, message ? `${reason}: ${message}` : reason);
  }

  /** The money moved: record it, issue the receipt, answer. Nothing here withholds the 200. */
  async function deliver(key: string, settled: SettleResult, answer: HttpReply, paid: PendingSettlement['paid']): Promise<HttpReply> {
    await config.replayGuard
      .markSettled(key)
      .catch((err: unknown) => fault('replay record write failed after settlement (the chain still refuses a replay)', err));
    let receiptHeader: Record<string, string> = {};
    if (config.receipts) {
      try {
        const issued = await config.receipts.issue({ ...paid, network: settled.network, body: answer.body });
        receiptHeader = { [RECEIPT_HEADER]: issued.headerValue };
      } catch (err) {
        fault(`receipt or ledger entry failed after settlement ${settled.transaction}; answering without a receipt`, err);
      }
    }
    return { ...answer, headers: { ...answer.headers, 'PAYMENT-RESPONSE': paymentResponseHeader(settled), ...receiptHeader } };
  }

  /** Verify, answer, settle for one claimed payment; the claim is released unless settled. */
  async function settleClaimed(call: PaidCall, scheme: ExactScheme, key: string): Promise<HttpReply> {
    let keepClaim = false;
    let recorded = false;
    try {
      const verified = await scheme.verify(call.payment, call.requirements, call.request.signal);
      if (!verified.isValid) return refuse(call, verified.invalidReason ?? 'invalid_payment', verified.invalidMessage);
      const answer = await call.answer().catch(replyForError);
      // Charged only for a 200: any other answer goes out as it is, nothing settled.
      if (answer.status !== 200) return answer;
      const record = (network: string, payer: string, transaction: string) => {
        recorded = true;
        return pending.record(key, {
          network,
          transaction,
          payer,
          payloadSha256: payloadSha256(call),
          answer: storableAnswer(answer),
          paid: paidOf(call),
          recordedAt: Date.now(),
        });
      };
      const beforeBroadcast = async (transaction: string): Promise<void> => {
        // Nobody would receive the answer: settling now would charge without answering.
        if (call.request.signal.aborted) throw new ServiceError('settlement_failed', 'the caller disconnected before settlement; nothing was charged');
        // On disk before the payment can reach the chain: a crash after the broadcast leaves the
        // record for the retry to resolve, instead of a charge without an answer.
        if (scheme.settlementStatus) await record(call.requirements.network, verified.payer ?? '', transaction);
      };
      const settled = await scheme.settle(call.payment, call.requirements, call.request.signal, beforeBroadcast);
      if (settled.success) {
        keepClaim = true;
        const reply = await deliver(key, settled, answer, paidOf(call));
        if (recorded)
          await pending.resolve(key).catch((err: unknown) => fault('could not drop a delivered pending record (the replay record refuses it)', err));
        return reply;
      }
      if (settled.errorReason === SETTLEMENT_PENDING && recorded) {
        // Now with what the broadcast told (the EVM hash, the payer), for the answer's PAYMENT-RESPONSE.
        await record(settled.network, settled.payer || verified.payer || '', settled.transaction);
        return refuse(
          call,
          SETTLEMENT_PENDING,
          `transaction ${settled.transaction || '(hash unknown)'} was sent but is not confirmed yet; retry the same payment to get the answer once it lands`,
        );
      }
      // Definitely not charged (refused, failed on chain): nothing left to resolve.
      if (recorded) await pending.resolve(key);
      return withSettleFailure(refuse(call, settled.errorReason ?? 'settlement_failed', settled.errorMessage), settled);
    } catch (err) {
      return replyForError(err);
    } finally {
      if (!keepClaim) config.replayGuard.release(key);
    }
  }

  /** A retry of a payment whose settlement was pending: ask the chain where it stands. */
  async function resolvePending(call: PaidCall, scheme: ExactScheme, key: string, record: PendingSettlement): Promise<HttpReply> {
    if (record.payloadSha256 !== payloadSha256(call)) return refuse(call, 'duplicate_settlement', 'another payment with this key is being settled');
    const claim = config.replayGuard.acquire(key);
    if (claim === 'settled') {
      await pending.resolve(key).catch((err: unknown) => fault('could not drop a settled pending record', err));
      return refuse(call, 'duplicate_settlement', 'this payment was already settled');
    }
    // A copy racing the first request (its record is written before broadcast) or another retry.
    if (claim === 'in_flight') return refuse(call, 'duplicate_settlement', 'this payment is being settled by another request');
    let keepClaim = false;
    try {
      const status = await scheme.settlementStatus!(call.payment, call.requirements, record.transaction, call.request.signal);
      if (status.status === 'pending') return refuse(call, SETTLEMENT_PENDING, `transaction ${record.transaction}: ${status.message}`);
      if (status.status === 'failed') {
        // Nothing was charged: the payment is free to be made again (with a fresh transaction).
        await pending.resolve(key);
        return refuse(call, status.reason, status.message);
      }
      keepClaim = true;
      const settled: SettleResult = { success: true, transaction: record.transaction, network: record.network, payer: record.payer };
      const reply = await deliver(key, settled, replyOf(record.answer), record.paid);
      await pending.resolve(key).catch((err: unknown) => fault('could not drop a delivered pending record (the replay record refuses it)', err));
      return reply;
    } catch (err) {
      return replyForError(err);
    } finally {
      if (!keepClaim) config.replayGuard.release(key);
    }
  }

  async function processPayment(call: PaidCall): Promise<HttpReply> {
    const scheme = schemes.get(call.requirements.network);
    if (!scheme) return refuse(call, 'invalid_network', `no settlement path is configured for ${call.requirements.network}`);
    const key = scheme.replayKey(call.payment);
    if (key === null) return refuse(call, 'invalid_payload', 'the payment payload has no transaction this network can read');
    const record = pending.get(key);
    if (record && scheme.settlementStatus) return resolvePending(call, scheme, key, record);
    const claim = config.replayGuard.acquire(key);
    if (claim !== 'acquired')
      return refuse(
        call,
        'duplicate_settlement',
        claim === 'settled' ? 'this payment was already settled' : 'this payment is being settled by another request',
      );
    return settleClaimed(call, scheme, key);
  }

  /** Same id and payload: the first answer again, from memory or (after a restart) from disk. */
  function processWithId(call: PaidCall, id: string): Promise<HttpReply> | HttpReply {
    // Path and query, not the full URL: the same request is the same resource behind any host or port.
    const fingerprint = paymentFingerprint(call.payment, paidOf(call).originalUrl);
    const conflict = () =>
      errorReply({ error: 'payment_identifier_conflict', message: 'this payment-identifier was used with a different payment or resource' });
    const cached = idempotency.lookup(id, fingerprint);
    if (cached.kind === 'conflict') return conflict();
    if (cached.kind === 'hit') return cached.value;
    const stored = paidAnswers.lookup(id, fingerprint);
    if (stored.kind === 'conflict') return conflict();
    if (stored.kind === 'hit') return stored.reply;
    const reply = processPayment(call).then(async (r) => {
      if (r.status === 200) await paidAnswers.remember(id, fingerprint, r).catch((err: unknown) => fault('payment-identifier answer not stored durably', err));
      return r;
    });
    idempotency.remember(id, fingerprint, reply, (r) => r.status === 200);
    return reply;
  }

  return {
    async process(call) {
      const id = extractPaymentId(call.payment);
      if (!id.ok) return refuse(call, 'invalid_payload', id.message);
      return id.id === null ? processPayment(call) : processWithId(call, id.id);
    },
    supported() {
      const kinds: SupportedKind[] = [...schemes.values()].map((s) => ({ x402Version: 2, scheme: 'exact', network: s.network, extra: s.supportedExtra }));
      const signers: Record<string, readonly string[]> = {};
      for (const s of schemes.values()) signers[s.network] = s.signers;
      return { kinds, signers };
    },
  };
}

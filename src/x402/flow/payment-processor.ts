/**
 * The PaymentProcessor of the paid routes (docs/contract.md#paid-call-flow steps 4-7): honour the
 * payment-identifier extension, then hand the call to the facilitator the scheme registry
 * (scheme-registry.ts) finds for its scheme and network: payment channels
 * (channels/channel-machine.ts) or the network's exact scheme, whose state machine (claim,
 * verify, settle, deliver, retry) is exact/exact-machine.ts. A caller is charged only for
 * a 200 and one payment buys one answer.
 *
 * Once money moved nothing may withhold the answer: a failed replay-record or ledger write after
 * settlement is reported and the 200 still goes out. A settlement that did not reach the
 * commitment in time is recorded (with its answer) before the 402 `settlement_pending` leaves; a
 * retry of the same payment then gets the stored 200 once it landed, exactly once. Every settled 200
 * is kept with that record (a dropped connection is often noticed only after its answer was
 * written), and the identical retry of the same payment gets it, receipt and PAYMENT-RESPONSE
 * included, with no new charge; the payment for another request stays refused.
 */
import { errorReply, replyForError, type HttpReply } from '../../errors.ts';
import type { ReceiptIssuer } from '../../receipts/receipt-issuer.ts';
import type { ChannelMachine } from '../channels/channel-machine.ts';
import { createExactMachine, refusal } from '../exact/exact-machine.ts';
import type { EarlyAnswers } from '../exact/early-answers.ts';
import { createEarlySettlement } from '../exact/early-settlement.ts';
import { startEarlyAdoption } from '../exact/early-adoption.ts';
import type { ExactScheme } from '../types/exact-scheme.ts';
import { createFailedPayments, type FailedPayments } from '../stores/failed-payments.ts';
import { createIdempotencyCache, IDEMPOTENCY_TTL_MS } from '../stores/idempotency-cache.ts';
import { paidOf, type PaidCall } from '../types/paid-call.ts';
import { createReceiptStamp, type ExtensionReceipt } from '../delivery/paid-delivery.ts';
import { createPaidAnswerStore, type IdClaim, type PaidAnswerStore } from '../stores/paid-answer-store.ts';
import type { ChallengeBuilder } from '../delivery/payment-terms.ts';
import { extractPaymentId, paymentFingerprint } from '../types/payment-identifier.ts';
import { createPendingSettlements, type PendingSettlements } from '../stores/pending-settlements.ts';
import { noRoomFor, recordsRefused, type ShareLimits } from '../stores/record-shares.ts';
import { parseChannelPayload } from '../channels/channel-payload.ts';
import { createPaidTiming, type PaidTiming, withServerTiming } from '../delivery/paid-timing.ts';
import type { ReplayGuard } from '../stores/replay-guard.ts';
import type { SupportedKind, SupportedKinds } from '../types/x402-types.ts';
import { createSchemeRegistry, type SchemeFacilitator } from './scheme-registry.ts';

/** Verifies and settles payments, and answers a paid call with its reply. */
export interface PaymentProcessor {
  /** The one entry point of a paid call: its payment verified and settled, and its reply. */
  processPaidCall(call: PaidCall): Promise<HttpReply>;
  /** The x402 kinds this processor can settle now, and their signers (/facilitator/supported). */
  supported(): SupportedKinds;
}

/** The schemes the processor settles with, and where it keeps what must outlive a restart. */
export interface PaymentProcessorConfig {
  readonly schemes: readonly ExactScheme[];
  /** Signs the receipt and appends the ledger entry durably before the 200 leaves (docs/contract.md#receipts). */
  readonly receipts?: Pick<ReceiptIssuer, 'issue'>;
  /** The x402 `offer-receipt` receipt of each paid answer, in its settlement response (absent: none). */
  readonly extensionReceipt?: ExtensionReceipt;
  readonly replayGuard: ReplayGuard;
  /** The route's challenge builder, for 402 answers that name the reason. */
  readonly challengeFor: (path: string) => ChallengeBuilder;
  readonly idempotencyTtlMs?: number;
  /** Bound of the file stores (pending settlements, payment-identifier answers): beyond it new paid calls get 503. */
  readonly recordsMax?: number;
  /** Shares of the default file stores per payer and per client address. */
  readonly recordShares?: ShareLimits;
  /** Durable pending settlements; default: beside the replay record. */
  readonly pending?: PendingSettlements;
  /** Durable payment-identifier answers; default: beside the replay record. */
  readonly paidAnswers?: PaidAnswerStore;
  /** Bookkeeping faults after a settlement (the answer goes out regardless); default stderr. */
  readonly onFault?: (what: string, err: unknown) => void;
  /** Payment channels (`batch-settlement`), when offered: their processor and `/facilitator/supported` kind. */
  readonly channels?: { readonly machine: ChannelMachine; readonly kind: SupportedKind; readonly signers: readonly string[] } | null;
  /** Payments refused by their verification a moment ago (default: a fresh memory). */
  readonly failed?: FailedPayments;
  /** The bounds of early answers for cheap calls; absent: every call waits for its confirmation. */
  readonly early?: EarlyAnswers | null;
}

function reportFault(what: string, err: unknown): void {
  console.error(`payments: ${what}: ${err instanceof Error ? err.message : String(err)}`);
}

/** The file record's directory, where the other file state defaults to; a database guard brings its own stores. */
function fileDir(guard: ReplayGuard): string {
  if (guard.dir === null) throw new Error('a replay guard in the database needs its pending settlements and paid answers given too');
  return guard.dir;
}

/** Creates the processor over the registered schemes (one per network). */
export function createPaymentProcessor(config: PaymentProcessorConfig): PaymentProcessor {
  const schemes = new Map(config.schemes.map((s) => [s.network, s]));
  const ttlMs = config.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS;
  const idempotency = createIdempotencyCache<HttpReply>({ ttlMs });
  const bound = {
    ...(config.recordsMax === undefined ? {} : { maxEntries: config.recordsMax }),
    ...(config.recordShares ? { shares: config.recordShares } : {}),
  };
  const pending = config.pending ?? createPendingSettlements({ dir: fileDir(config.replayGuard), ...bound });
  const paidAnswers = config.paidAnswers ?? createPaidAnswerStore({ dir: fileDir(config.replayGuard), ttlMs, ...bound });
  const fault = config.onFault ?? reportFault;
  const failed = config.failed ?? createFailedPayments();

  const refuse = (call: PaidCall, reason: string, message?: string): HttpReply => refusal(config.challengeFor, call, reason, message);
  const early = config.early ? createEarlySettlement({ answers: config.early, pending, fault }) : null;
  // The early answers a stop left unresolved count against the caps again and are followed to their end.
  const schemeFor = (network: string) => schemes.get(network);
  const recovered = early?.recover(schemeFor).catch((err: unknown) => fault('early answers left by a stop could not be read', err));
  // Shared by instances: a gone instance's unresolved answers are taken up by the live ones (early-adoption.ts).
  if (early && config.early?.store.scope === 'database') void recovered?.finally(() => startEarlyAdoption({ early, schemeFor, fault }));
  const stamp = createReceiptStamp({ receipts: config.receipts, extensionReceipt: config.extensionReceipt, fault });
  const exact = createExactMachine({ replayGuard: config.replayGuard, pending, failed, early, challengeFor: config.challengeFor, stamp, fault });

  // One facilitator per exact scheme's network, and the channels (`batch-settlement`) when offered: a
  // channel payment has no per-call settlement to guard against replays, its cumulative voucher is its own guard.
  const channels = config.channels;
  const findScheme = createSchemeRegistry([
    ...config.schemes.map(
      (s): SchemeFacilitator => ({
        scheme: 'exact',
        network: s.network,
        settle: (call, timing) => exact.settleCall(call, s, timing),
        payerOf: (call) => s.payerOf?.(call.payment) ?? '',
      }),
    ),
    ...(channels
      ? [
          {
            scheme: 'batch-settlement',
            network: channels.kind.network,
            settle: (call: PaidCall, timing: PaidTiming) => channels.machine.chargeCall(call, timing),
            payerOf: (call: PaidCall) => {
              const parsed = parseChannelPayload(call.payment.payload);
              return parsed.ok ? parsed.payload.channelConfig.payer : '';
            },
          },
        ]
      : []),
  ]);

  /** To the facilitator of the call's scheme and network. */
  async function processPayment(call: PaidCall, timing: PaidTiming): Promise<HttpReply> {
    const found = findScheme(call.requirements.scheme, call.requirements.network);
    return found.ok ? found.facilitator.settle(call, timing) : refuse(call, found.reason, found.message);
  }

  /** The payer a payment names, unchecked (a channel's config, an exact scheme's transfer): the shares are asked with it before anything is verified. */
  const payerNamed = (call: PaidCall): string => {
    const found = findScheme(call.requirements.scheme, call.requirements.network);
    return found.ok ? found.facilitator.payerOf(call) : '';
  };

  const conflict = (): HttpReply =>
    errorReply({ error: 'payment_identifier_conflict', message: 'this payment-identifier was used with a different payment or resource' });

  /** What the store found for the id, answered: the stored 200, 409, or the payment processed (and its 200 stored). */
  async function answerFound(call: PaidCall, id: string, fingerprint: string, found: IdClaim, timing: PaidTiming): Promise<HttpReply> {
    if (found.kind === 'conflict') return conflict();
    if (found.kind === 'hit') return found.reply;
    // The same payment under this id on another instance now: its replay guard decides, as without an id.
    if (found.kind === 'busy') return processPayment(call, timing);
    const giveBack = (): Promise<void> =>
      found.kind === 'acquired' && paidAnswers.release
        ? paidAnswers.release(id, fingerprint).catch((err: unknown) => fault('payment-identifier claim not released', err))
        : Promise.resolve();
    const owners = { payer: payerNamed(call), client: call.request.client ?? '' };
    const noRoom = noRoomFor(paidAnswers, owners);
    if (noRoom) {
      await giveBack();
      return replyForError(recordsRefused(noRoom));
    }
    // The answer rides in the 200's commit (the journal's, or the ledger batch's transaction); a store that cannot stage writes it after.
    const stage = paidAnswers.stageRemember?.bind(paidAnswers);
    const withId: PaidCall = stage ? { ...call, alsoKeep: (reply) => [stage(id, fingerprint, reply, owners)] } : call;
    const r = await processPayment(withId, timing).catch(async (err: unknown) => {
      await giveBack();
      throw err;
    });
    if (r.status !== 200) await giveBack();
    else if (!stage || (await paidAnswers.lookup(id, fingerprint)).kind !== 'hit')
      await paidAnswers.remember(id, fingerprint, r, owners).catch((err: unknown) => fault('payment-identifier answer not stored durably', err));
    return r;
  }

  /**
   * Same id and payload: the first answer again, from memory or (after a restart, or from another
   * instance) from the store. A shared store claims the id first, so of two payments under one
   * id on two instances only one is charged.
   */
  function processWithId(call: PaidCall, id: string, timing: PaidTiming): Promise<HttpReply> | HttpReply {
    // Path and query, not the full URL: the same request is the same resource behind any host or port.
    const fingerprint = paymentFingerprint(call.payment, paidOf(call).originalUrl);
    const cached = idempotency.lookup(id, fingerprint);
    if (cached.kind === 'conflict') return conflict();
    if (cached.kind === 'hit') return cached.value;
    const stored = paidAnswers.claim ? paidAnswers.claim(id, fingerprint) : paidAnswers.lookup(id, fingerprint);
    if (!(stored instanceof Promise)) {
      if (stored.kind === 'conflict') return conflict();
      if (stored.kind === 'hit') return stored.reply;
    }
    // In memory before any await: a concurrent call with this id shares this answer.
    const reply = Promise.resolve(stored).then((found) => answerFound(call, id, fingerprint, found, timing));
    idempotency.remember(id, fingerprint, reply, (r) => r.status === 200);
    return reply;
  }

  return {
    async processPaidCall(call) {
      const id = extractPaymentId(call.payment);
      if (!id.ok) return refuse(call, 'invalid_payload', id.message);
      // Added last, so stored and replayed answers never carry another call's timing.
      const timing = createPaidTiming();
      // A store that cannot answer (the database down) is a fault of this call: 503, nothing charged.
      const reply = await Promise.resolve(id.id === null ? processPayment(call, timing) : processWithId(call, id.id, timing)).catch(replyForError);
      return withServerTiming(reply, timing);
    },
    supported() {
      const kinds: SupportedKind[] = [...schemes.values()].map((s) => ({ x402Version: 2, scheme: 'exact', network: s.network, extra: s.getExtra() }));
      const signers: Record<string, string[]> = {};
      for (const s of schemes.values()) signers[s.network] = [...s.getSigners()];
      if (config.channels) {
        kinds.push(config.channels.kind);
        const net = config.channels.kind.network;
        signers[net] = [...new Set([...(signers[net] ?? []), ...config.channels.signers])];
      }
      return { kinds, signers };
    },
  };
}

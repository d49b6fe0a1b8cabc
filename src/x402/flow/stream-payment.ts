/**
 * Paying a live stream by the period (docs/streams.md): a payment a stream socket carries is
 * matched against the period's terms as an MCP `_meta` payment is (the same `matchPayment`; a Solana
 * `exact` payment may buy a window of several periods, stream-window.ts), and
 * handed to the one PaymentProcessor as a PaidCall whose answer is the window it buys. So a
 * period's charge is a paid call's: one charge, one receipt, one ledger entry and the kept answer
 * in one durable commit, never one per message. The kept answer carries `paidUntil`: the identical
 * payment sent again (a reconnect) finds it, as a call's identical retry does, and resumes the
 * window it bought without a second charge, across restarts.
 */
import type { StreamEntry } from '../../catalog/streams.ts';
import { periodResource } from '../../catalog/streams.ts';
import type { HttpReply } from '../../errors.ts';
import type { ChallengeBuilder } from '../delivery/payment-terms.ts';
import type { PaidAdmission, PaymentOutcome } from './paid-caller.ts';
import type { PaymentProcessor } from './payment-processor.ts';
import { matchStreamPayment } from './stream-window.ts';

/** What a payment did for a stream: a window (new, or resumed from its kept answer), or why not. */
export type StreamCharge =
  | {
      readonly ok: true;
      /** When the paid window ends, ms since the epoch. */
      readonly paidUntil: number;
      /** False when the payment was already charged (its kept answer resumed): nothing new was charged. */
      readonly charged: boolean;
      /** The x402 SettleResponse of the charge. */
      readonly paymentResponse: unknown;
      /** Our receipt of the charge (`X-Service-Receipt`), or null when it could not be issued. */
      readonly receipt: string | null;
    }
  | { readonly ok: false; readonly reason: string; readonly message: string };

export interface StreamPaymentsConfig {
  /** The challenge builder of each stream's period, by stream path. */
  readonly challenges: ReadonlyMap<string, ChallengeBuilder>;
  readonly processor: PaymentProcessor | null;
  /** The stream clock, ms: a window starts now, or at the end of the one already paid. */
  readonly now: () => number;
  /** Why paid calls are refused now (the kill switch, a ledger that cannot write), or null. */
  readonly stopped?: () => string | null;
  /** True while the CPU pool's queue is full. */
  readonly busy?: () => boolean;
  /** The per-client limits of failed payments, shared with the paid calls. */
  readonly admission?: PaidAdmission;
}

export interface StreamPayments {
  /** The x402 v2 PaymentRequired of one period of `stream` (`error`: why it is asked again). */
  paymentRequired(stream: StreamEntry, resourceUrl: string, error?: string): unknown;
  /** Pays a period of `stream` with the payment object a socket sent; `paidUntil` is the socket's window now (0: none). */
  pay(stream: StreamEntry, payment: StreamPaymentAttempt): Promise<StreamCharge>;
}

export interface StreamPaymentAttempt {
  readonly resourceUrl: string;
  readonly object: unknown;
  readonly paidUntil: number;
  readonly client: string;
  readonly signal: AbortSignal;
}

const headerOf = (reply: HttpReply, name: string): string | undefined => {
  const headers = reply.headers ?? {};
  for (const k in headers) if (k.toLowerCase() === name) return headers[k];
  return undefined;
};

const decodeBase64Json = (value: string | undefined): unknown => (value === undefined ? null : JSON.parse(Buffer.from(value, 'base64').toString('utf8')));

/** A refusal reply's x402 reason and its fixed sentence (the body every refusal carries). */
function refusalOf(reply: HttpReply): StreamCharge {
  try {
    const body = JSON.parse(String(reply.body)) as { error?: unknown; message?: unknown };
    return { ok: false, reason: String(body.error ?? 'payment_refused'), message: String(body.message ?? 'the payment was refused') };
  } catch {
    return { ok: false, reason: 'payment_refused', message: 'the payment was refused' };
  }
}

/** The window a 200 bought: read from its body (the kept answer of a resumed payment is the same body). */
function chargeOf(reply: HttpReply, charged: boolean): StreamCharge {
  const body = JSON.parse(String(reply.body)) as { paidUntil: number };
  const receipt = headerOf(reply, 'x-service-receipt') ?? null;
  return { ok: true, paidUntil: body.paidUntil, charged, paymentResponse: decodeBase64Json(headerOf(reply, 'payment-response')), receipt };
}

const outcomeOf = (charge: StreamCharge): PaymentOutcome => (charge.ok ? (charge.charged ? 'paid' : 'neutral') : 'failed');

/** Creates the stream payments over the processor the paid routes use. */
export function createStreamPayments(config: StreamPaymentsConfig): StreamPayments {
  let memo: { readonly header: string; readonly object: unknown } | null = null;
  const builderOf = (stream: StreamEntry) => config.challenges.get(stream.path)!;

  async function charge(stream: StreamEntry, attempt: StreamPaymentAttempt, builder: ChallengeBuilder): Promise<StreamCharge> {
    const decoded = matchStreamPayment(attempt.object, builder.accepts, stream);
    if (!decoded.ok) return { ok: false, reason: decoded.reason, message: decoded.message };
    if (!config.processor) return { ok: false, reason: 'invalid_network', message: `no settlement path is configured for ${decoded.requirements.network}` };
    let answered = false;
    const answer = async (): Promise<HttpReply> => {
      answered = true;
      const paidFrom = Math.max(config.now(), attempt.paidUntil);
      const { periods } = decoded;
      const paidUntil = paidFrom + periods * stream.periodSeconds * 1000;
      const body = JSON.stringify({ stream: stream.path, periods, periodSeconds: stream.periodSeconds, paidFrom, paidUntil });
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body };
    };
    const request = { path: stream.path, query: '', signal: attempt.signal };
    const call = {
      entry: periodResource(stream, decoded.periods),
      payment: decoded.payment,
      requirements: decoded.requirements,
      resourceUrl: attempt.resourceUrl,
      request,
      answer,
    };
    const reply = await config.processor.processPaidCall(call);
    return reply.status === 200 ? chargeOf(reply, answered) : refusalOf(reply);
  }

  return {
    paymentRequired(stream, resourceUrl, error) {
      const header = headerOf(builderOf(stream).reply(resourceUrl, error), 'payment-required')!;
      if (memo?.header !== header) memo = { header, object: decodeBase64Json(header) };
      return memo.object;
    },
    async pay(stream, attempt) {
      const stopped = config.stopped?.() ?? null;
      if (stopped !== null) return { ok: false, reason: 'service_stopped', message: stopped };
      if (config.busy?.()) return { ok: false, reason: 'busy', message: 'the service is busy; retry shortly' };
      const limits = config.admission;
      const refused = limits?.matched(attempt.client);
      if (refused) return refusalOf(refused);
      try {
        const result = await charge(stream, attempt, builderOf(stream));
        limits?.ended(attempt.client, outcomeOf(result));
        return result;
      } catch (err) {
        limits?.ended(attempt.client, 'neutral');
        throw err;
      }
    },
  };
}

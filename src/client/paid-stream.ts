/**
 * One connection of `client.stream(topic)` (docs/streams.md): the service's first message offers
 * one period's terms; the connection pays it on the client's first lane that takes them (the
 * channel's voucher, signed natively; a Solana `exact` payment of `periods` periods), answers every
 * `renew` the same way at once, hands each update to `onUpdate`, and ends with the service's
 * `closing` reason. Spend limits hold per payment as per call. Its first payment may instead be a
 * resume: the last payment answered on an earlier connection (no new charge), or the one still
 * unanswered when the earlier connection dropped. stream-reconnect.ts strings connections together.
 */
import { STREAM_MAX_WINDOW_PERIODS, STREAM_WINDOW_NETWORK_PREFIX } from '../catalog/streams.ts';
import { openClientSocket } from './client-socket.ts';
import type { PaymentLane, PreparedPayment } from './payment-lane.ts';
import type { SpendLedger } from './spend-limits.ts';
import type { Terms } from './x402-wire.ts';

/**
 * One update of a stream: its topic's data, the slot it is about (for new pairs, the newest slot the
 * service had seen; `unknown` when none) and when the service's source delivered it (ms since the epoch).
 */
export interface StreamUpdate {
  readonly topic: string;
  readonly slot: number | 'unknown';
  readonly at: number;
  readonly data: unknown;
}

export interface StreamerConfig {
  readonly base: string;
  readonly lanes: readonly PaymentLane[];
  readonly ledger: SpendLedger;
}

/** A payment sent and not answered yet; it moves to the next connection when its socket drops. */
export interface PendingPayment {
  readonly payment: PreparedPayment | null;
  readonly release: (charged: boolean) => void;
  readonly units: bigint;
  readonly periods: number;
  readonly sent: unknown;
  /**
   * `fresh`: paid on this connection; `carried`: sent on a connection that dropped before its
   * answer (it may have been charged there, and is counted once); `resume`: the last payment
   * answered before, sent again to resume its window (never counted again).
   */
  readonly kind: 'fresh' | 'carried' | 'resume';
}

/** What every connection of one stream adds to: what it cost and what came. */
export interface StreamTally {
  periods: number;
  paidUnits: bigint;
  readonly receipts: string[];
  updates: number;
  /** The last payment the service answered for: what a reconnect resumes with. */
  lastPayment: unknown;
  /** Payments answered (new or resumed): a connection that got one worked. */
  answers: number;
}

/** How a connection ended: the service's `closing`, or ours; null when the socket closed without either. */
export type Ending = { readonly reason: string; readonly message: string; readonly error?: string };

export interface ConnectionEnd {
  readonly ending: Ending | null;
  readonly code: number;
  readonly closeReason: string;
  /** The payment sent and not answered when the socket closed (it may have been charged). */
  readonly pending: PendingPayment | null;
}

/** What a connection is told: where, the tally, its first payment if not a fresh one, and how updates and the end are handed on. */
export interface ConnectionPlan {
  readonly url: string;
  readonly tally: StreamTally;
  readonly periods: number;
  readonly first: PendingPayment | null;
  readonly onUpdate?: (update: StreamUpdate) => void;
  readonly done: (end: ConnectionEnd) => void;
}

/** A message of the service, as parsed: its members are read by name and checked where used. */
type ServerMessage = { readonly type?: unknown; readonly [member: string]: unknown };

/** True for a number of periods a Solana `exact` payment may buy. */
export const validPeriods = (n: number): boolean => Number.isInteger(n) && n >= 1 && n <= STREAM_MAX_WINDOW_PERIODS;

/** The terms of `periods` periods: a Solana `exact` option's amount times `periods`; any other option buys one. */
function windowTerms(terms: Terms, periods: number): { readonly terms: Terms; readonly periods: number } {
  if (periods === 1 || terms.scheme !== 'exact' || !terms.network.startsWith(STREAM_WINDOW_NETWORK_PREFIX)) return { terms, periods: 1 };
  return { terms: { ...terms, amount: String(BigInt(terms.amount) * BigInt(periods)) }, periods };
}

/** One socket of a stream and its bookkeeping. */
export class StreamConnection {
  private pending: PendingPayment | null = null;
  private ending: Ending | null = null;
  private first: PendingPayment | null;
  private readonly socket;

  constructor(
    private readonly config: StreamerConfig,
    private readonly plan: ConnectionPlan,
  ) {
    this.first = plan.first;
    this.socket = openClientSocket(plan.url, {
      onMessage: (text) => this.message(text),
      onClose: (code, closeReason) => {
        const pending = this.pending;
        this.pending = null;
        plan.done({ ending: this.ending, code, closeReason, pending });
      },
    });
  }

  /** Closes the socket (a normal close), ending with `why` unless the service said otherwise first. */
  end(why: Ending): void {
    this.ending ??= why;
    this.socket.close();
  }

  private send(pending: PendingPayment): void {
    this.pending = pending;
    this.socket.send(JSON.stringify({ type: 'payment', payment: pending.sent }));
  }

  private async pay(accepts: readonly Terms[]): Promise<void> {
    const chosen = this.config.lanes.map((lane) => ({ lane, terms: lane.pick(accepts) })).find((c) => c.terms !== null);
    if (!chosen?.terms) return this.end({ reason: 'no_payment_option', message: 'the stream offers no option this client can pay' });
    const { terms, periods } = windowTerms(chosen.terms, this.plan.periods);
    const held = this.config.ledger.hold(BigInt(terms.amount));
    if (!held.ok) return this.end({ reason: held.reason, message: held.message });
    const prepared = await chosen.lane.prepare(terms).catch(() => null);
    if (!prepared?.ok) {
      held.release(false);
      return this.end({ reason: prepared?.reason ?? 'payment_not_built', message: prepared?.message ?? 'the payment could not be built' });
    }
    const sent = { x402Version: 2, payload: prepared.payment.payload, resource: { url: this.plan.url }, accepted: terms };
    this.send({ payment: prepared.payment, release: held.release, units: BigInt(terms.amount), periods, sent, kind: 'fresh' });
  }

  private answered(m: { paymentResponse?: unknown; receipt?: unknown; resumed?: unknown }): void {
    const was = this.pending;
    this.pending = null;
    if (!was) return;
    const tally = this.plan.tally;
    tally.lastPayment = was.sent;
    tally.answers++;
    const header = Buffer.from(JSON.stringify(m.paymentResponse ?? {})).toString('base64');
    void was.payment?.finish({ status: 200, headers: { 'payment-response': header }, bytes: Buffer.alloc(0) });
    // A payment carried over from a dropped socket was charged once, there or here, and never counted: it counts even when resumed.
    const charged = was.kind === 'carried' || (was.kind === 'fresh' && m.resumed !== true);
    was.release(charged);
    if (!charged) return;
    tally.periods += was.periods;
    tally.paidUnits += was.units;
    if (typeof m.receipt === 'string') tally.receipts.push(m.receipt);
  }

  private offered(m: ServerMessage): void {
    if (this.pending) return;
    if (m.type === 'payment-required' && this.first) {
      const first = this.first;
      this.first = null;
      this.send(first);
      return;
    }
    const accepts = (m.paymentRequired as { accepts?: unknown } | undefined)?.accepts;
    void this.pay(Array.isArray(accepts) ? (accepts as Terms[]) : []);
  }

  private message(text: string): void {
    let m: ServerMessage;
    try {
      m = JSON.parse(text) as ServerMessage;
    } catch {
      this.end({ reason: 'bad_message', message: 'the service sent a message that is not JSON' });
      return;
    }
    if (m.type === 'update') {
      this.plan.tally.updates++;
      this.plan.onUpdate?.({ topic: String(m.topic), slot: m.slot === 'unknown' ? 'unknown' : Number(m.slot), at: Number(m.at), data: m.data });
    } else if (m.type === 'payment-required' || m.type === 'renew') this.offered(m);
    else if (m.type === 'payment-response') this.answered(m as Parameters<StreamConnection['answered']>[0]);
    else if (m.type === 'closing') this.ending ??= { reason: String(m.reason), message: String(m.message), ...(m.error ? { error: String(m.error) } : {}) };
  }
}

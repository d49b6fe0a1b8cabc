/**
 * `client.stream(topic)`: a paid live stream (docs/streams.md) held from one WebSocket. The
 * service's first message offers one period's terms; the client pays it on its first lane that
 * takes them (the channel's voucher, signed natively), answers every `renew` the same way at
 * once, hands each update to `onUpdate`, and ends with the service's `closing` reason (or when
 * `signal` fires). Spend limits hold per period as per call. `resumeWith`, the last payment of an
 * earlier stream, resumes its paid window without a second charge.
 */
import { openClientSocket } from './client-socket.ts';
import type { PaymentLane, PreparedPayment } from './payment-lane.ts';
import type { SpendLedger } from './spend-limits.ts';
import type { Terms } from './x402-wire.ts';

/** One update of a stream: its topic's data, the slot it is about and when the service's Geyser stream delivered it (ms since the epoch). */
export interface StreamUpdate {
  readonly topic: string;
  readonly slot: number;
  readonly at: number;
  readonly data: unknown;
}

export interface StreamOptions {
  readonly onUpdate?: (update: StreamUpdate) => void;
  /** Ends the stream (a normal close) when it fires. */
  readonly signal?: AbortSignal;
  /** The `lastPayment` of an earlier stream of this topic: its paid window resumes with no new charge. */
  readonly resumeWith?: unknown;
}

/** How a stream ended and what it cost. */
export interface StreamResult {
  /** The service's `closing` reason, `ended` (the signal), `closed` (the socket closed without one) or a refusal here. */
  readonly reason: string;
  readonly message: string;
  /** The x402 reason of a refused payment. */
  readonly error?: string;
  /** Periods charged (a resumed payment charges none), their total in units, and the receipts of the charges. */
  readonly periods: number;
  readonly paidUnits: bigint;
  readonly receipts: readonly string[];
  readonly updates: number;
  /** The last payment the service answered for: `resumeWith` of a reconnect. */
  readonly lastPayment: unknown;
}

export interface StreamerConfig {
  readonly base: string;
  readonly lanes: readonly PaymentLane[];
  readonly ledger: SpendLedger;
}

interface Pending {
  readonly payment: PreparedPayment | null;
  readonly release: (charged: boolean) => void;
  readonly units: bigint;
  readonly sent: unknown;
}

/** A message of the service, as parsed: its members are read by name and checked where used. */
type ServerMessage = { readonly type?: unknown; readonly [member: string]: unknown };

type Ending = { readonly reason: string; readonly message: string; readonly error?: string };

/** One stream's connection and its bookkeeping. */
class PaidStream {
  private readonly receipts: string[] = [];
  private periods = 0;
  private paidUnits = 0n;
  private updates = 0;
  private lastPayment: unknown = null;
  private pending: Pending | null = null;
  private ending: Ending | null = null;
  private resumeSent = false;
  private readonly socket;

  constructor(
    private readonly config: StreamerConfig,
    private readonly url: string,
    private readonly options: StreamOptions,
    done: (result: StreamResult) => void,
  ) {
    const onAbort = () => this.end({ reason: 'ended', message: 'the stream was ended by its signal' });
    this.socket = openClientSocket(url, {
      onMessage: (text) => this.message(text),
      onClose: (code, reason) => {
        options.signal?.removeEventListener('abort', onAbort);
        this.settleLeft();
        const why = this.ending ?? { reason: 'closed', message: `the stream closed (${code}${reason ? ` ${reason}` : ''})` };
        const { periods, paidUnits, receipts, updates, lastPayment } = this;
        done({ ...why, periods, paidUnits, receipts, updates, lastPayment });
      },
    });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  }

  private end(why: Ending): void {
    this.ending ??= why;
    this.socket.close();
  }

  /** A payment sent and not answered when the socket closed may have been charged: it stays counted. */
  private settleLeft(): void {
    const left = this.pending;
    this.pending = null;
    if (!left) return;
    void left.payment?.finish(null);
    left.release(true);
  }

  private send(pending: Pending): void {
    this.pending = pending;
    this.socket.send(JSON.stringify({ type: 'payment', payment: pending.sent }));
  }

  private async pay(accepts: readonly Terms[]): Promise<void> {
    const chosen = this.config.lanes.map((lane) => ({ lane, terms: lane.pick(accepts) })).find((c) => c.terms !== null);
    if (!chosen?.terms) return this.end({ reason: 'no_payment_option', message: 'the stream offers no option this client can pay' });
    const held = this.config.ledger.hold(BigInt(chosen.terms.amount));
    if (!held.ok) return this.end({ reason: held.reason, message: held.message });
    const prepared = await chosen.lane.prepare(chosen.terms).catch(() => null);
    if (!prepared?.ok) {
      held.release(false);
      return this.end({ reason: prepared?.reason ?? 'payment_not_built', message: prepared?.message ?? 'the payment could not be built' });
    }
    const sent = { x402Version: 2, payload: prepared.payment.payload, resource: { url: this.url }, accepted: chosen.terms };
    this.send({ payment: prepared.payment, release: held.release, units: BigInt(chosen.terms.amount), sent });
  }

  private answered(m: { paymentResponse?: unknown; receipt?: unknown; resumed?: unknown }): void {
    const was = this.pending;
    this.pending = null;
    if (!was) return;
    this.lastPayment = was.sent;
    const header = Buffer.from(JSON.stringify(m.paymentResponse ?? {})).toString('base64');
    void was.payment?.finish({ status: 200, headers: { 'payment-response': header }, bytes: Buffer.alloc(0) });
    was.release(m.resumed !== true);
    if (m.resumed === true) return;
    this.periods++;
    this.paidUnits += was.units;
    if (typeof m.receipt === 'string') this.receipts.push(m.receipt);
  }

  private offered(m: ServerMessage): void {
    if (this.pending) return;
    if (m.type === 'payment-required' && this.options.resumeWith !== undefined && !this.resumeSent) {
      this.resumeSent = true;
      this.send({ payment: null, release: () => {}, units: 0n, sent: this.options.resumeWith });
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
      this.updates++;
      this.options.onUpdate?.({ topic: String(m.topic), slot: Number(m.slot), at: Number(m.at), data: m.data });
    } else if (m.type === 'payment-required' || m.type === 'renew') this.offered(m);
    else if (m.type === 'payment-response') this.answered(m as Parameters<PaidStream['answered']>[0]);
    else if (m.type === 'closing') this.ending ??= { reason: String(m.reason), message: String(m.message), ...(m.error ? { error: String(m.error) } : {}) };
  }
}

/** The streams of one client: `stream(topic, options)` resolves when the stream ends. */
export function createStreamer(config: StreamerConfig) {
  return (topic: string, options: StreamOptions = {}): Promise<StreamResult> =>
    new Promise((resolve) => {
      const url = `${config.base.replace(/^http/, 'ws')}/v1/stream/${encodeURIComponent(topic)}`;
      new PaidStream(config, url, options, resolve);
    });
}

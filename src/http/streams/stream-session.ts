/**
 * One paid stream socket, without uWS (stream-sockets.ts is the socket, stream-hub.ts the
 * instance): it offers the period's terms, takes payments one at a time, subscribes to its topic
 * only while paid, says `renew` one period ahead, and closes with a fixed reason at a lapse, a
 * flood, a hostile message, a refused payment or when another socket resumes its window.
 */
import type { StreamEntry } from '../../catalog/streams.ts';
import type { StreamCharge, StreamPayments } from '../../x402/flow/stream-payment.ts';
import {
  CLOSING_REASONS,
  type ClosingReason,
  closingText,
  paymentOf,
  STREAM_GRACE_MS,
  STREAM_MAX_MESSAGE_BYTES,
  STREAM_MAX_MESSAGES_PER_SECOND,
  STREAM_RENEW_LEAD_MS,
  STREAM_UNPAID_MAX_MS,
} from './stream-protocol.ts';

/** What a session does to its socket. */
export interface StreamSocket {
  send(text: string): void;
  end(code: number, reason: string): void;
  subscribe(): void;
  unsubscribe(): void;
  /** Bytes written and not yet sent. */
  buffered(): number;
}

/** What a session needs of its instance (stream-hub.ts). */
export interface SessionHost {
  readonly payments: StreamPayments;
  now(): number;
  /** Look at `session` again at `atMs`. */
  schedule(session: StreamSession, atMs: number): void;
  /** `session` now holds the window of this charge (the socket that held it before is superseded). */
  claim(window: string, session: StreamSession): void;
  /** `session` is gone: it holds nothing. */
  release(session: StreamSession): void;
  fault(what: string, err: unknown): void;
}

/** Who the socket is: its stream, the resource URL its terms name, and its client key. */
export interface SessionIdentity {
  readonly stream: StreamEntry;
  readonly resourceUrl: string;
  readonly client: string;
}

export class StreamSession {
  paidUntil = 0;
  private renewSent = false;
  private paying = false;
  private subscribed = false;
  private closed = false;
  private second = 0;
  private messages = 0;
  private readonly abort = new AbortController();
  private readonly openedAt: number;

  constructor(
    readonly who: SessionIdentity,
    private readonly socket: StreamSocket,
    private readonly host: SessionHost,
  ) {
    this.openedAt = host.now();
  }

  /** The offer: the period's terms as the 402 would give them. */
  open(): void {
    const paymentRequired = this.host.payments.paymentRequired(this.who.stream, this.who.resourceUrl);
    this.socket.send(JSON.stringify({ type: 'payment-required', paymentRequired }));
    this.host.schedule(this, this.openedAt + STREAM_UNPAID_MAX_MS);
  }

  /** A text the client sent (already copied out of uWS). */
  message(text: string): void {
    if (this.closed) return;
    const now = this.host.now();
    if (now - this.second >= 1000) {
      this.second = now;
      this.messages = 0;
    }
    if (text.length > STREAM_MAX_MESSAGE_BYTES || ++this.messages > STREAM_MAX_MESSAGES_PER_SECOND) {
      this.cut('flood');
      return;
    }
    const sent = paymentOf(text);
    if (!sent) {
      this.cut('bad_message');
      return;
    }
    if (this.paying) {
      this.cut('flood', 'one payment at a time: wait for the payment-response of the last one');
      return;
    }
    this.paying = true;
    const attempt = { resourceUrl: this.who.resourceUrl, object: sent.payment, paidUntil: this.paidUntil, client: this.who.client, signal: this.abort.signal };
    this.host.payments.pay(this.who.stream, attempt).then(
      (charge) => this.charged(charge),
      (err: unknown) => {
        this.host.fault('a stream payment failed', err);
        this.charged({ ok: false, reason: 'payment_failed', message: 'the payment could not be processed; nothing was charged for it' });
      },
    );
  }

  private charged(charge: StreamCharge): void {
    this.paying = false;
    if (this.closed) return;
    if (!charge.ok) {
      this.cut('payment_refused', charge.message, charge.reason);
      return;
    }
    const now = this.host.now();
    const { paymentResponse, receipt } = charge;
    this.socket.send(JSON.stringify({ type: 'payment-response', paymentResponse, paidUntil: charge.paidUntil, receipt, resumed: !charge.charged }));
    // A resumed payment whose window is over buys nothing: the socket keeps what it had, and is asked again when it had nothing.
    if (charge.paidUntil + STREAM_GRACE_MS <= now) {
      if (this.paidUntil === 0) this.offerAgain('the window this payment bought has ended; pay a new period');
      return;
    }
    this.host.claim(receipt ?? JSON.stringify(paymentResponse), this);
    if (charge.paidUntil > this.paidUntil) {
      this.paidUntil = charge.paidUntil;
      this.renewSent = false;
    }
    if (!this.subscribed) {
      this.subscribed = true;
      this.socket.subscribe();
    }
    this.scheduleNext(now);
  }

  private offerAgain(error: string): void {
    const paymentRequired = this.host.payments.paymentRequired(this.who.stream, this.who.resourceUrl, error);
    this.socket.send(JSON.stringify({ type: 'payment-required', paymentRequired }));
  }

  private renewAt(): number {
    return this.paidUntil - Math.min(STREAM_RENEW_LEAD_MS, this.who.stream.periodSeconds * 1000);
  }

  private scheduleNext(now: number): void {
    const renewAt = this.renewAt();
    this.host.schedule(this, !this.renewSent && renewAt > now ? renewAt : this.paidUntil + STREAM_GRACE_MS);
  }

  /** The wheel's look at this socket: unpaid too long, lapsed, or time to say `renew`. */
  due(now: number): void {
    if (this.closed) return;
    if (this.paidUntil === 0) {
      if (now >= this.openedAt + STREAM_UNPAID_MAX_MS && !this.paying) {
        this.cut('unpaid');
        return;
      }
      this.host.schedule(this, now + STREAM_UNPAID_MAX_MS);
      return;
    }
    if (now >= this.paidUntil + STREAM_GRACE_MS) {
      this.cut('lapsed');
      return;
    }
    if (!this.renewSent && now >= this.renewAt()) {
      this.renewSent = true;
      const paymentRequired = this.host.payments.paymentRequired(this.who.stream, this.who.resourceUrl);
      this.socket.send(JSON.stringify({ type: 'renew', paidUntil: this.paidUntil, paymentRequired }));
    }
    this.scheduleNext(now);
  }

  /** Whether it is paid and further behind than `limit` bytes. */
  behind(limit: number): boolean {
    return !this.closed && this.subscribed && this.socket.buffered() > limit;
  }

  /** Closes with a `closing` message and the reason's close frame. */
  cut(reason: ClosingReason, message?: string, error?: string): void {
    if (this.closed) return;
    this.socket.send(closingText(reason, message, error));
    this.gone();
    this.socket.end(CLOSING_REASONS[reason].code, reason);
  }

  /** The socket closed (by either side): nothing more is sent, an unsettled payment's call is abandoned. */
  gone(): void {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    this.host.release(this);
  }
}

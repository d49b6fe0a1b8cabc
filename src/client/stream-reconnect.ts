/**
 * `client.stream(topic)`: a paid live stream (docs/streams.md) held across dropped sockets. Each
 * connection is a StreamConnection (paid-stream.ts); when one drops (the socket closed without a
 * `closing`, or the service said `slow_consumer` or `shutting_down`, whose paid window stays), the
 * next connects after a backoff and resumes with the last payment the service answered, or with
 * the payment still unanswered when the socket dropped: the service finds its kept answer and
 * streams on until the window that charge bought ends, with no second charge. Any other `closing`
 * (a lapse, a refused payment, `superseded`) and the caller's signal end the stream. The backoff's
 * wait is injectable, so a test moves it instead of waiting on the wall clock.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ConnectionEnd,
  type Ending,
  type PendingPayment,
  StreamConnection,
  type StreamerConfig,
  type StreamTally,
  type StreamUpdate,
  validPeriods,
} from './paid-stream.ts';
import { STREAM_MAX_WINDOW_PERIODS } from '../catalog/streams.ts';

export type { StreamUpdate };

/** How a dropped stream comes back: attempts in a row without an answered payment, and the backoff between them. */
export interface ReconnectOptions {
  /** Connections tried in a row after a drop, none of which got a payment answered and an update (default 5). */
  readonly attempts?: number;
  /** The first wait, doubled each attempt in a row (default 250 ms), up to `maxDelayMs` (default 8 s). */
  readonly firstDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Waits `ms` (default a timer); resolves early or rejects when `signal` fires. Tests pass their own. */
  readonly wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const DEFAULT_RECONNECT = Object.freeze({ attempts: 5, firstDelayMs: 250, maxDelayMs: 8_000 });

export interface StreamOptions {
  readonly onUpdate?: (update: StreamUpdate) => void;
  /** Ends the stream (a normal close) when it fires. */
  readonly signal?: AbortSignal;
  /** The `lastPayment` of an earlier stream of this topic: its paid window resumes with no new charge. */
  readonly resumeWith?: unknown;
  /** Periods one Solana `exact` payment buys (1 to 360, default 1); a channel voucher buys one. */
  readonly periods?: number;
  /** Reconnecting after a dropped socket (default DEFAULT_RECONNECT); false: never. */
  readonly reconnect?: ReconnectOptions | false;
}

/** How a stream ended and what it cost. */
export interface StreamResult {
  /** The service's `closing` reason, `ended` (the signal), `closed` (the socket closed without one, reconnects spent) or a refusal here. */
  readonly reason: string;
  readonly message: string;
  /** The x402 reason of a refused payment. */
  readonly error?: string;
  /** Periods charged (a resumed payment charges none), their total in units, and the receipts of the charges. */
  readonly periods: number;
  readonly paidUnits: bigint;
  readonly receipts: readonly string[];
  readonly updates: number;
  /** The last payment the service answered for: `resumeWith` of a later stream. */
  readonly lastPayment: unknown;
  /** Connections made after the first. */
  readonly reconnects: number;
}

/** Closings after which the service keeps the paid window for a reconnect (docs/streams.md). */
const RESUMABLE = new Set(['slow_consumer', 'shutting_down']);

const timerWait = (ms: number, signal?: AbortSignal): Promise<void> => sleep(ms, undefined, signal ? { signal } : {});

/** The wait before attempt `n` (1-based) of a row. */
export const backoffMs = (n: number, first: number, max: number): number => Math.min(max, first * 2 ** (n - 1));

/** The streams of one client: `stream(topic, options)` resolves when the stream ends. */
export function createStreamer(config: StreamerConfig) {
  return async (topic: string, options: StreamOptions = {}): Promise<StreamResult> => {
    const tally: StreamTally = { periods: 0, paidUnits: 0n, receipts: [], updates: 0, lastPayment: options.resumeWith ?? null, answers: 0 };
    const result = (why: Ending, reconnects: number): StreamResult => {
      const { periods, paidUnits, receipts, updates, lastPayment } = tally;
      return { ...why, periods, paidUnits, receipts, updates, lastPayment, reconnects };
    };
    const periods = options.periods ?? 1;
    if (!validPeriods(periods)) return result({ reason: 'bad_option', message: `periods is a whole number from 1 to ${STREAM_MAX_WINDOW_PERIODS}` }, 0);
    const url = `${config.base.replace(/^http/, 'ws')}/v1/stream/${encodeURIComponent(topic)}`;
    const again = options.reconnect === false ? null : { ...DEFAULT_RECONNECT, wait: timerWait, ...options.reconnect };
    const resume = (): PendingPayment | null =>
      tally.lastPayment === null ? null : { payment: null, release: () => {}, units: 0n, periods: 0, sent: tally.lastPayment, kind: 'resume' };
    let first = resume();
    let reconnects = 0;
    let inARow = 0;
    for (;;) {
      const before = { answers: tally.answers, updates: tally.updates };
      const end = await connect(config, { url, tally, periods, first, ...(options.onUpdate ? { onUpdate: options.onUpdate } : {}) }, options.signal);
      const why = end.ending ?? { reason: 'closed', message: `the stream closed (${end.code}${end.closeReason ? ` ${end.closeReason}` : ''})` };
      // A connection worked when a payment was answered and updates came: a service that answers and drops at once stays bounded.
      inARow = tally.answers > before.answers && tally.updates > before.updates ? 1 : inARow + 1;
      const retry = again !== null && !options.signal?.aborted && (end.ending === null || RESUMABLE.has(end.ending.reason)) && inARow <= again.attempts;
      if (retry) {
        const waited = await again.wait(backoffMs(inARow, again.firstDelayMs, again.maxDelayMs), options.signal).then(
          () => !options.signal?.aborted,
          () => false,
        );
        if (waited) {
          reconnects++;
          // The unanswered payment goes first: charged on the dropped socket, its kept answer resumes; if not, it is charged now, once.
          first = end.pending ? { ...end.pending, kind: end.pending.kind === 'resume' ? 'resume' : 'carried' } : resume();
          continue;
        }
      }
      settleLeft(end.pending);
      return result(options.signal?.aborted ? { reason: 'ended', message: 'the stream was ended by its signal' } : why, reconnects);
    }
  };
}

/** One connection, ended by the service, the socket, or `signal`. */
function connect(config: StreamerConfig, plan: Omit<ConstructorParameters<typeof StreamConnection>[1], 'done'>, signal?: AbortSignal): Promise<ConnectionEnd> {
  return new Promise((resolve) => {
    const onAbort = () => connection.end({ reason: 'ended', message: 'the stream was ended by its signal' });
    const connection = new StreamConnection(config, {
      ...plan,
      done: (end) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(end);
      },
    });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A payment sent and never answered may have been charged: it stays counted, and its lane hears that no answer came. */
function settleLeft(left: PendingPayment | null): void {
  if (!left) return;
  void left.payment?.finish(null);
  left.release(true);
}

/**
 * A client of the paid streams for tests: the `ws` package (as a bot would use it), every message
 * parsed and queued for `next`, the close code and reason kept; and a clock the test moves, which
 * the service's stream billing reads and whose wheel turns only when the test says so.
 */
import WebSocket from 'ws';

export interface StreamMessage {
  readonly type: string;
  readonly [key: string]: any;
}

export interface StreamConnection {
  readonly ws: WebSocket;
  /** The next message (waits for it). */
  next(): Promise<StreamMessage>;
  /** The next message of `type`, skipping others (updates, mostly). */
  nextOf(type: string): Promise<StreamMessage>;
  /** Sends `{type: 'payment', payment}`. */
  pay(payment: unknown): void;
  /** Resolves with the close code and reason once the socket is closed. */
  readonly closed: Promise<{ readonly code: number; readonly reason: string }>;
}

export interface OpenStreamOptions {
  /** The local address the socket is bound to (a loopback alias, 127.0.0.x: a client key of its own). */
  readonly localAddress?: string;
  /** Sees each message first, with when it arrived (Date.now(), the clock of the service's `at` on one machine); updates it sees are not queued. */
  readonly onMessage?: (m: StreamMessage, receivedAt: number) => void;
}

/** Opens a stream socket and waits until it is open. */
export function openStream(url: string, options: OpenStreamOptions = {}): Promise<StreamConnection> {
  const ws = new WebSocket(url, options.localAddress ? { localAddress: options.localAddress } : {});
  const queue: StreamMessage[] = [];
  const waiting: ((m: StreamMessage) => void)[] = [];
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as StreamMessage;
    if (options.onMessage) {
      options.onMessage(m, Date.now());
      if (m.type === 'update') return;
    }
    const w = waiting.shift();
    if (w) w(m);
    else queue.push(m);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const next = () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise<StreamMessage>((r) => waiting.push(r)));
  const nextOf = async (type: string): Promise<StreamMessage> => {
    for (;;) {
      const m = await next();
      if (m.type === type) return m;
    }
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, next, nextOf, pay: (payment) => ws.send(JSON.stringify({ type: 'payment', payment })), closed }));
    ws.once('error', reject);
  });
}

/** The stream clock a test moves: `advance` moves time and turns the wheel once. */
export function manualStreamClock(start = 1_800_000_000_000) {
  let t = start;
  const ticks = new Set<() => void>();
  return {
    now: () => t,
    every(_ms: number, tick: () => void) {
      ticks.add(tick);
      return () => void ticks.delete(tick);
    },
    advance(ms: number) {
      t += ms;
      for (const tick of ticks) tick();
    },
  };
}

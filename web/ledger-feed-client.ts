/**
 * The live ledger panel's connection: a WebSocket to `/ledger/live`, reconnected with exponential
 * backoff when it drops; after a few failed attempts in a row (or with no WebSocket at all) it
 * polls `/ledger?limit=20` meanwhile, and stops polling once the socket is back. The browser's
 * WebSocket, fetch and timers are passed in, so the logic is tested without a browser.
 */

/** A ledger entry as /ledger serves it (payment or audit). */
export interface FeedEntry {
  readonly index: number;
  readonly time: string;
  readonly kind: string;
  readonly endpoint?: string;
  readonly event?: string;
  readonly reason?: string;
  readonly priceUsdcUnits?: number;
  readonly network?: string;
  readonly receiptSha256?: string;
  readonly prevHash: string;
  readonly entrySha256: string;
}

export interface FeedCheckpoint {
  readonly treeSize: number;
  readonly rootSha256: string;
  readonly chainHead: string;
}

export type FeedState = { readonly mode: 'connecting' | 'live' } | { readonly mode: 'retrying'; readonly inMs: number; readonly polling: boolean };

export interface FeedHandlers {
  entry(entry: FeedEntry): void;
  checkpoint(checkpoint: FeedCheckpoint): void;
  state(state: FeedState): void;
}

/** The minimal WebSocket this needs (the browser's fits). */
export interface FeedSocket {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  close(): void;
}

export interface FeedDeps {
  readonly socketUrl: string;
  readonly pollUrl: string;
  /** Null when the browser has no WebSocket: the panel polls. */
  readonly openSocket: ((url: string) => FeedSocket) | null;
  readonly fetchJson: (url: string) => Promise<unknown>;
  readonly setTimer: (fn: () => void, ms: number) => unknown;
  readonly clearTimer: (timer: unknown) => void;
}

/** First reconnect delay; doubled per failed attempt up to BACKOFF_MAX_MS. */
export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_MAX_MS = 30_000;
/** Failed attempts in a row before polling starts. */
export const POLL_AFTER_FAILURES = 3;
export const POLL_INTERVAL_MS = 5000;

/** Delay before reconnect attempt `failures` (1-based). */
export function backoffMs(failures: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
}

/** Reads one feed message; unknown messages are ignored (the feed may grow). */
export function dispatchMessage(data: unknown, handlers: Pick<FeedHandlers, 'entry' | 'checkpoint'>): void {
  if (typeof data !== 'string') return;
  let m: { type?: unknown; entry?: FeedEntry; treeSize?: number; rootSha256?: string; chainHead?: string };
  try {
    m = JSON.parse(data);
  } catch {
    return;
  }
  if (m.type === 'entry' && m.entry && typeof m.entry.index === 'number') handlers.entry(m.entry);
  if (m.type === 'checkpoint' && typeof m.treeSize === 'number')
    handlers.checkpoint({ treeSize: m.treeSize, rootSha256: String(m.rootSha256), chainHead: String(m.chainHead) });
}

/** Reads /ledger every POLL_INTERVAL_MS while `wanted()` holds (the socket is down). */
function createPoller(deps: FeedDeps, handlers: FeedHandlers, wanted: () => boolean) {
  let timer: unknown = null;
  const poll = async () => {
    timer = null;
    try {
      const body = (await deps.fetchJson(deps.pollUrl)) as { entries?: FeedEntry[]; treeSize?: number; merkleRootSha256?: string; chainHeadSha256?: string };
      if (!wanted()) return;
      for (const e of body.entries ?? []) handlers.entry(e);
      if (typeof body.treeSize === 'number')
        handlers.checkpoint({ treeSize: body.treeSize, rootSha256: String(body.merkleRootSha256), chainHead: String(body.chainHeadSha256) });
    } catch {
      // The next poll tries again; the state line already says the feed is down.
    }
    if (wanted() && timer === null) timer = deps.setTimer(() => void poll(), POLL_INTERVAL_MS);
  };
  return {
    /** Polls now and then on, unless already polling. */
    start: () => {
      if (timer === null) void poll();
    },
    stop: () => {
      if (timer !== null) deps.clearTimer(timer);
      timer = null;
    },
  };
}

/** The socket's life: connect, reconnect with backoff, poll meanwhile after repeated failures. */
class FeedConnection {
  private failures = 0;
  private socket: FeedSocket | null = null;
  private reconnect: unknown = null;
  private stopped = false;
  private readonly poller: ReturnType<typeof createPoller>;

  constructor(
    private readonly deps: FeedDeps & { readonly openSocket: NonNullable<FeedDeps['openSocket']> },
    private readonly handlers: FeedHandlers,
  ) {
    this.poller = createPoller(deps, handlers, () => !this.stopped && this.socket === null);
  }

  connect(): void {
    this.reconnect = null;
    if (this.stopped) return;
    this.handlers.state({ mode: 'connecting' });
    let ws: FeedSocket;
    try {
      ws = this.deps.openSocket(this.deps.socketUrl);
    } catch {
      this.retry();
      return;
    }
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.failures = 0;
      this.socket = ws;
      this.poller.stop();
      this.handlers.state({ mode: 'live' });
    };
    ws.onmessage = (ev) => dispatchMessage(ev.data, this.handlers);
    ws.onclose = () => this.closed(ws, opened);
  }

  private closed(ws: FeedSocket, wasOpen: boolean): void {
    if (this.socket === ws) this.socket = null;
    if (this.stopped) return;
    // A socket that was open starts the backoff over: the first retry is quick.
    if (wasOpen) this.failures = 0;
    this.retry();
  }

  private retry(): void {
    this.failures += 1;
    const polling = this.failures >= POLL_AFTER_FAILURES;
    if (polling) this.poller.start();
    const inMs = backoffMs(this.failures);
    this.handlers.state({ mode: 'retrying', inMs, polling });
    this.reconnect = this.deps.setTimer(() => this.connect(), inMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.reconnect !== null) this.deps.clearTimer(this.reconnect);
    this.poller.stop();
    this.socket?.close();
  }
}

/** Starts the connection (or, without WebSocket, the polling); returns its stop. */
export function connectLedgerFeed(deps: FeedDeps, handlers: FeedHandlers): () => void {
  const openSocket = deps.openSocket;
  if (openSocket === null) {
    let stopped = false;
    const poller = createPoller(deps, handlers, () => !stopped);
    poller.start();
    handlers.state({ mode: 'retrying', inMs: POLL_INTERVAL_MS, polling: true });
    return () => {
      stopped = true;
      poller.stop();
    };
  }
  const connection = new FeedConnection({ ...deps, openSocket }, handlers);
  connection.connect();
  return () => connection.stop();
}

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

/** Starts the connection; returns its stop. */
export function connectLedgerFeed(deps: FeedDeps, handlers: FeedHandlers): () => void {
  let failures = 0;
  let socket: FeedSocket | null = null;
  let reconnect: unknown = null;
  let poller: unknown = null;
  let stopped = false;

  const poll = async () => {
    poller = null;
    try {
      const body = (await deps.fetchJson(deps.pollUrl)) as { entries?: FeedEntry[]; treeSize?: number; merkleRootSha256?: string; chainHeadSha256?: string };
      if (stopped || socket) return;
      for (const e of body.entries ?? []) handlers.entry(e);
      if (typeof body.treeSize === 'number')
        handlers.checkpoint({ treeSize: body.treeSize, rootSha256: String(body.merkleRootSha256), chainHead: String(body.chainHeadSha256) });
    } catch {
      // The next poll tries again; the state line already says the feed is down.
    }
    if (!stopped && !socket && poller === null) poller = deps.setTimer(() => void poll(), POLL_INTERVAL_MS);
  };
  const stopPolling = () => {
    if (poller !== null) deps.clearTimer(poller);
    poller = null;
  };
  const retry = () => {
    failures += 1;
    const polling = deps.openSocket === null || failures >= POLL_AFTER_FAILURES;
    if (polling && poller === null) void poll();
    if (deps.openSocket === null) return handlers.state({ mode: 'retrying', inMs: POLL_INTERVAL_MS, polling: true });
    const inMs = backoffMs(failures);
    handlers.state({ mode: 'retrying', inMs, polling });
    reconnect = deps.setTimer(connect, inMs);
  };
  function connect(): void {
    reconnect = null;
    if (stopped) return;
    if (deps.openSocket === null) {
      retry();
      return;
    }
    handlers.state({ mode: 'connecting' });
    let ws: FeedSocket;
    try {
      ws = deps.openSocket(deps.socketUrl);
    } catch {
      retry();
      return;
    }
    let opened = false;
    ws.onopen = () => {
      opened = true;
      failures = 0;
      socket = ws;
      stopPolling();
      handlers.state({ mode: 'live' });
    };
    ws.onmessage = (ev) => dispatchMessage(ev.data, handlers);
    ws.onclose = () => {
      if (socket === ws) socket = null;
      if (stopped) return;
      // A socket that was open starts the backoff over: the first retry is quick.
      if (opened) failures = 0;
      retry();
    };
  }
  connect();
  return () => {
    stopped = true;
    if (reconnect !== null) deps.clearTimer(reconnect);
    stopPolling();
    socket?.close();
  };
}

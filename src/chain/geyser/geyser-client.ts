/**
 * The service's one Geyser subscription (the only importer of `@triton-one/yellowstone-grpc`):
 * slots (every status), non-vote transactions at `confirmed` and blocks meta. It pings the server
 * on a timer and answers server pings (keeps proxies from idling the stream out), treats a stream
 * that delivers no slot for `staleMs` as stale (torn down and re-opened), and reconnects with
 * capped exponential backoff plus jitter, re-sending the subscription. The client's errors carry
 * the gRPC status in `error.cause`; that is what `status().lastError` reports. What each update
 * feeds is geyser-update-router.ts.
 */
import * as yellowstone from '@triton-one/yellowstone-grpc';
import { CommitmentLevel, SubscribeRequest, type ClientDuplexStream, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGeyserLiveness, createStallClock, type GeyserState } from './geyser-liveness.ts';
import { createUpdateRouter, type GeyserHandlers } from './geyser-update-router.ts';

/** Client ping period (Yellowstone servers ping every 15 s; load balancers idle out at ~60 s). */
export const GEYSER_PING_INTERVAL_MS = 10_000;
/** Default: a stream with no slot for this long is stale (mainnet makes ~2.5 slots a second). */
export const GEYSER_STALE_MS = 5_000;
export const GEYSER_BACKOFF_INITIAL_MS = 250;
export const GEYSER_BACKOFF_MAX_MS = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** The ESM and CJS builds expose the class differently (see test/integration/geyser-test-client.ts). */
type ClientClass = typeof yellowstone.default.default;
const loaded = yellowstone as unknown as { default: ClientClass | { default: ClientClass } };
const Client: ClientClass = typeof loaded.default === 'function' ? loaded.default : loaded.default.default;

/** A snapshot of the subscription, for /health and the freshness of answers. */
export interface GeyserStatus {
  readonly state: GeyserState;
  readonly lastSlot: number | null;
  readonly lastSlotAtMs: number | null;
  readonly subscriptions: number;
  readonly updates: number;
  readonly lastError: { readonly message: string; readonly atMs: number } | null;
}

/** Where to subscribe, what to feed, and the timing of pings, staleness and reconnects. */
export interface GeyserStreamConfig {
  readonly url: string;
  readonly token: string | null;
  readonly staleMs?: number;
  readonly pingIntervalMs?: number;
  readonly backoffInitialMs?: number;
  readonly backoffMaxMs?: number;
  readonly handlers: GeyserHandlers;
}

/** The subscription kept open across drops. */
export interface GeyserStream {
  /** Starts the connect loop (returns at once). */
  start(): void;
  /** Resolves true once live, false after `timeoutMs`. */
  whenLive(timeoutMs: number): Promise<boolean>;
  /** Live = subscribed and a slot arrived within `staleMs`. */
  isLive(now?: number): boolean;
  status(): GeyserStatus;
  close(): Promise<void>;
}

/** The subscription the caches need, replaying from `fromSlot` when given. */
export function timingSubscribeRequest(fromSlot: number | null = null): SubscribeRequest {
  return SubscribeRequest.fromPartial({
    ...(fromSlot === null ? {} : { fromSlot: String(fromSlot) }),
    slots: { slots: { filterByCommitment: false } },
    transactions: { nonVote: { vote: false } },
    blocksMeta: { blocksMeta: {} },
    commitment: CommitmentLevel.CONFIRMED,
  });
}

/** "message: cause" with the gRPC status the client puts in `cause`. */
export function describeGeyserError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? cause.message : cause === undefined ? '' : typeof cause === 'object' ? JSON.stringify(cause) : String(cause);
  return detail ? `${error.message}: ${detail}` : error.message;
}

/**
 * Rejects when `promise` takes longer than the connect timeout (a wedged channel must not stall
 * the loop) or when `stop` fires (close() must not wait for a call to a server that hangs).
 */
function within<T>(promise: Promise<T>, what: string, stop: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onStop: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`geyser ${what} did not complete within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
    onStop = () => reject(new Error(`geyser ${what} abandoned: the stream is closing`));
    if (stop.aborted) onStop();
    else stop.addEventListener('abort', onStop, { once: true });
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    if (onStop) stop.removeEventListener('abort', onStop);
  });
}

/** Builds the stream manager; nothing connects before `start()`. */
export function createGeyserStream(config: GeyserStreamConfig): GeyserStream {
  const staleMs = config.staleMs ?? GEYSER_STALE_MS;
  const stop = new AbortController();
  const liveness = createGeyserLiveness();
  const setState = liveness.set;
  // Resubscribe with from_slot (gap-free recovery) unless the last attempt to do so failed.
  let resume = true;
  let subscriptions = 0;
  let lastError: GeyserStatus['lastError'] = null;
  let running: Promise<void> | null = null;
  let client: InstanceType<ClientClass> | null = null;
  const router = createUpdateRouter({
    handlers: config.handlers,
    onFreshSlot: () => {
      if (liveness.state() !== 'live') setState('live');
    },
  });
  const progress = router.progress;

  /** The client, built and connected once, and kept while its connection keeps subscribing. */
  async function connected(): Promise<InstanceType<ClientClass>> {
    if (client === null) {
      const fresh = new Client(config.url, config.token ?? undefined, {
        grpcConnectTimeout: CONNECT_TIMEOUT_MS,
        grpcKeepAliveWhileIdle: true,
        grpcHttp2KeepAliveInterval: 15_000,
        grpcKeepAliveTimeout: 10_000,
      });
      await within(fresh.connect(), 'connect', stop.signal);
      client = fresh;
    }
    return client;
  }

  /** One subscription: resolves when the stream ends, rejects on its error. */
  async function session(): Promise<void> {
    const connection = await connected();
    const resumeFrom = resume && progress.lastConfirmed !== null ? progress.lastConfirmed + 1 : null;
    progress.replayUntil = resumeFrom === null ? null : Number((await within(connection.getSlot(CommitmentLevel.PROCESSED), 'getSlot', stop.signal)).slot);
    await watch(await within(connection.subscribe(), 'subscribe', stop.signal), resumeFrom);
  }

  /** Subscribes on `stream`, routes its updates, pings, and tears it down when stale or stopped. */
  function watch(stream: ClientDuplexStream, resumeFrom: number | null): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let pingId = 0;
      const openedAt = Date.now();
      const timers: NodeJS.Timeout[] = [];
      const finish = (error?: Error): void => {
        for (const t of timers) clearInterval(t);
        stop.signal.removeEventListener('abort', onStop);
        if (error) reject(error);
        else resolve();
      };
      const onStop = (): void => void stream.destroy();
      const answerPing = (): void => void stream.write(SubscribeRequest.fromPartial({ ping: { id: 1 } }), () => undefined);
      // The error listener goes on before the first write (an early failure must not go unhandled).
      stream.on('error', (error: Error) => finish(error));
      stream.on('close', () => finish());
      stream.on('data', (update: SubscribeUpdate) => router.route(update, answerPing));
      // A close() that came while connecting fired before this listener: an 'abort' never comes,
      // and a stream from a live server would then run (and hold close()) forever.
      if (stop.signal.aborted) return void stream.destroy();
      stop.signal.addEventListener('abort', onStop);
      stream.write(timingSubscribeRequest(resumeFrom), (error?: Error | null) => {
        if (error) return void stream.destroy(error);
        subscriptions++;
        config.handlers.onSubscribed(resumeFrom);
      });
      timers.push(
        setInterval(
          () => stream.write(SubscribeRequest.fromPartial({ ping: { id: ++pingId } }), () => undefined),
          config.pingIntervalMs ?? GEYSER_PING_INTERVAL_MS,
        ),
      );
      const checkMs = Math.max(50, Math.min(1_000, staleMs / 4));
      const stall = createStallClock(openedAt, checkMs);
      const checkStall = (): void => {
        if (stall.silentMs(Date.now(), progress.lastAnySlotAtMs ?? 0) <= staleMs) return;
        setState('stale');
        stream.destroy(new Error(`no slot update for ${staleMs} ms: stream treated as stale`));
      };
      timers.push(setInterval(checkStall, checkMs));
      for (const t of timers) t.unref();
    });
  }

  async function loop(): Promise<void> {
    let backoff = config.backoffInitialMs ?? GEYSER_BACKOFF_INITIAL_MS;
    while (!stop.signal.aborted) {
      const before = subscriptions;
      const slotsBefore = progress.slotUpdates;
      const resumed = resume && progress.lastConfirmed !== null;
      try {
        await session();
      } catch (error) {
        const message = describeGeyserError(error);
        // The log keeps the gRPC text (once per change, not once per reconnect); /health shows a fixed sentence for it.
        if (message !== lastError?.message) console.error(`geyser: ${message}`);
        lastError = { message, atMs: Date.now() };
        // A connection that never subscribed may be wedged: build a fresh client next time.
        if (subscriptions === before) client = null;
      }
      if (stop.signal.aborted) break;
      // A server that refuses or ignores from_slot must not stall recovery: next time, plain.
      // (A connection that never opened says nothing about from_slot: keep asking for it.)
      resume = !resumed || subscriptions === before || progress.slotUpdates > slotsBefore;
      if (liveness.state() !== 'stale') setState('down');
      if (progress.lastSlotAtMs !== null && progress.lastSlotAtMs > Date.now() - 2 * staleMs && subscriptions > before)
        backoff = config.backoffInitialMs ?? GEYSER_BACKOFF_INITIAL_MS;
      const wait = backoff * (0.5 + Math.random() / 2);
      backoff = Math.min(config.backoffMaxMs ?? GEYSER_BACKOFF_MAX_MS, backoff * 2);
      await sleep(wait, undefined, { signal: stop.signal }).catch(() => undefined);
      if (!stop.signal.aborted && liveness.state() === 'down') setState('connecting');
    }
  }

  return {
    start() {
      running ??= loop();
    },
    whenLive: liveness.whenLive,
    isLive(now = Date.now()) {
      return liveness.state() === 'live' && progress.lastSlotAtMs !== null && now - progress.lastSlotAtMs <= staleMs;
    },
    status: () => ({
      state: liveness.state(),
      lastSlot: progress.lastSlot,
      lastSlotAtMs: progress.lastSlotAtMs,
      subscriptions,
      updates: progress.updates,
      lastError,
    }),
    async close() {
      stop.abort();
      setState('closed');
      await running;
    },
  };
}

/**
 * The service's one Geyser subscription (the only importer of `@triton-one/yellowstone-grpc`):
 * slots (every status), non-vote transactions at `confirmed` and blocks meta. It pings the server
 * on a timer and answers server pings (keeps proxies from idling the stream out), treats a stream
 * that delivers no slot for `staleMs` as stale (torn down and re-opened), and reconnects with
 * capped exponential backoff plus jitter, re-sending the subscription. The client's errors carry
 * the gRPC status in `error.cause`; that is what `status().lastError` reports.
 */
import * as yellowstone from '@triton-one/yellowstone-grpc';
import { CommitmentLevel, SubscribeRequest, type ClientDuplexStream, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeBase58 } from './base58.ts';
import { JITO_TIP_ACCOUNTS, keyId, parseTransaction, type ParsedTransaction } from './geyser-tx-parse.ts';

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

export type SlotStatusName = 'processed' | 'confirmed' | 'finalized';
const SLOT_STATUS: Readonly<Record<number, SlotStatusName>> = { 0: 'processed', 1: 'confirmed', 2: 'finalized' };

/** What the stream feeds (the timing caches). Called synchronously on the event loop. */
export interface GeyserHandlers {
  /**
   * A new subscription is open: data before it may be partial. `resumeFrom` is set when the
   * subscription asked the server to replay from that slot (the slot after the last confirmed one).
   */
  onSubscribed(resumeFrom: number | null): void;
  /** `replayed`: the slot is at or below the server's head when we resubscribed (its arrival time is not its time). */
  onSlot(slot: number, status: SlotStatusName, atMs: number, replayed: boolean): void;
  onTransaction(slot: number, tx: ParsedTransaction): void;
  onBlockMeta?(slot: number, blockTimeSeconds: number | null, executedTransactions: number): void;
}

export type GeyserState = 'connecting' | 'live' | 'stale' | 'down' | 'closed';

export interface GeyserStatus {
  readonly state: GeyserState;
  readonly lastSlot: number | null;
  readonly lastSlotAtMs: number | null;
  readonly subscriptions: number;
  readonly updates: number;
  readonly lastError: { readonly message: string; readonly atMs: number } | null;
}

export interface GeyserStreamConfig {
  readonly url: string;
  readonly token: string | null;
  readonly staleMs?: number;
  readonly pingIntervalMs?: number;
  readonly backoffInitialMs?: number;
  readonly backoffMaxMs?: number;
  readonly handlers: GeyserHandlers;
}

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

/** Rejects when `promise` takes longer than the connect timeout (a wedged channel must not stall the loop). */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`geyser ${what} did not complete within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Builds the stream manager; nothing connects before `start()`. */
export function createGeyserStream(config: GeyserStreamConfig): GeyserStream {
  const staleMs = config.staleMs ?? GEYSER_STALE_MS;
  const tipIds = new Set(JITO_TIP_ACCOUNTS.map((a) => keyId(decodeBase58(a)!)));
  const stop = new AbortController();
  let state: GeyserState = 'connecting';
  let lastSlot: number | null = null;
  let lastSlotAtMs: number | null = null;
  let lastConfirmed: number | null = null;
  let slotUpdates = 0;
  let replayUntil: number | null = null;
  // Resubscribe with from_slot (gap-free recovery) unless the last attempt to do so failed.
  let resume = true;
  let subscriptions = 0;
  let updates = 0;
  let lastError: GeyserStatus['lastError'] = null;
  let running: Promise<void> | null = null;
  let client: InstanceType<ClientClass> | null = null;
  const liveWaiters = new Set<() => void>();

  const setState = (next: GeyserState): void => {
    state = next;
    if (next === 'live') for (const wake of liveWaiters) wake();
  };

  function onUpdate(update: SubscribeUpdate, stream: ClientDuplexStream): void {
    updates++;
    const now = Date.now();
    if (update.slot) {
      const status = SLOT_STATUS[update.slot.status];
      if (status === undefined) return;
      const slot = Number(update.slot.slot);
      const replayed = replayUntil !== null && slot <= replayUntil;
      slotUpdates++;
      if (lastSlot === null || slot > lastSlot) lastSlot = slot;
      if (status === 'confirmed' && (lastConfirmed === null || slot > lastConfirmed)) lastConfirmed = slot;
      // Only a slot the chain made after we resubscribed proves the stream is live.
      if (!replayed) {
        lastSlotAtMs = now;
        if (state !== 'live') setState('live');
      }
      config.handlers.onSlot(slot, status, now, replayed);
    } else if (update.transaction?.transaction) {
      const parsed = parseTransaction(update.transaction.transaction, tipIds);
      if (parsed) config.handlers.onTransaction(Number(update.transaction.slot), parsed);
    } else if (update.blockMeta) {
      const meta = update.blockMeta;
      config.handlers.onBlockMeta?.(Number(meta.slot), meta.blockTime ? Number(meta.blockTime.timestamp) : null, Number(meta.executedTransactionCount));
    } else if (update.ping) {
      // Answering the server's ping keeps intermediaries from closing an idle-looking stream.
      stream.write(SubscribeRequest.fromPartial({ ping: { id: 1 } }), () => undefined);
    }
  }

  /** One subscription: resolves when the stream ends, rejects on its error. */
  async function session(): Promise<void> {
    if (client === null) {
      const fresh = new Client(config.url, config.token ?? undefined, {
        grpcConnectTimeout: CONNECT_TIMEOUT_MS,
        grpcKeepAliveWhileIdle: true,
        grpcHttp2KeepAliveInterval: 15_000,
        grpcKeepAliveTimeout: 10_000,
      });
      await within(fresh.connect(), 'connect');
      client = fresh;
    }
    const resumeFrom = resume && lastConfirmed !== null ? lastConfirmed + 1 : null;
    replayUntil = resumeFrom === null ? null : Number((await within(client.getSlot(CommitmentLevel.PROCESSED), 'getSlot')).slot);
    const stream = await within(client.subscribe(), 'subscribe');
    await new Promise<void>((resolve, reject) => {
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
      // The error listener goes on before the first write (an early failure must not go unhandled).
      stream.on('error', (error: Error) => finish(error));
      stream.on('close', () => finish());
      stream.on('data', (update: SubscribeUpdate) => onUpdate(update, stream));
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
      timers.push(
        setInterval(
          () => {
            const since = Math.max(lastSlotAtMs ?? 0, openedAt);
            if (Date.now() - since > staleMs) {
              setState('stale');
              stream.destroy(new Error(`no slot update for ${staleMs} ms: stream treated as stale`));
            }
          },
          Math.max(50, Math.min(1_000, staleMs / 4)),
        ),
      );
      for (const t of timers) t.unref();
    });
  }

  async function loop(): Promise<void> {
    let backoff = config.backoffInitialMs ?? GEYSER_BACKOFF_INITIAL_MS;
    while (!stop.signal.aborted) {
      const before = subscriptions;
      const slotsBefore = slotUpdates;
      const resumed = resume && lastConfirmed !== null;
      try {
        await session();
      } catch (error) {
        lastError = { message: describeGeyserError(error), atMs: Date.now() };
        // A connection that never subscribed may be wedged: build a fresh client next time.
        if (subscriptions === before) client = null;
      }
      if (stop.signal.aborted) break;
      // A server that refuses or ignores from_slot must not stall recovery: next time, plain.
      // (A connection that never opened says nothing about from_slot: keep asking for it.)
      resume = !resumed || subscriptions === before || slotUpdates > slotsBefore;
      if (state !== 'stale') setState('down');
      if (lastSlotAtMs !== null && lastSlotAtMs > Date.now() - 2 * staleMs && subscriptions > before)
        backoff = config.backoffInitialMs ?? GEYSER_BACKOFF_INITIAL_MS;
      const wait = backoff * (0.5 + Math.random() / 2);
      backoff = Math.min(config.backoffMaxMs ?? GEYSER_BACKOFF_MAX_MS, backoff * 2);
      await sleep(wait, undefined, { signal: stop.signal }).catch(() => undefined);
      if (!stop.signal.aborted && state === 'down') setState('connecting');
    }
  }

  return {
    start() {
      running ??= loop();
    },
    whenLive(timeoutMs) {
      if (state === 'live') return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (ok: boolean): void => {
          clearTimeout(timer);
          liveWaiters.delete(wake);
          resolve(ok);
        };
        const wake = (): void => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        liveWaiters.add(wake);
      });
    },
    isLive(now = Date.now()) {
      return state === 'live' && lastSlotAtMs !== null && now - lastSlotAtMs <= staleMs;
    },
    status: () => ({ state, lastSlot, lastSlotAtMs, subscriptions, updates, lastError }),
    async close() {
      stop.abort();
      setState('closed');
      await running;
    },
  };
}

/**
 * The new-pairs stream's source (docs/streams.md#new-pairs): the market source's new-pools list
 * (GeckoTerminal `new_pools`, the list /v1/new-pairs answers from), polled every
 * NEW_PAIRS_POLL_MS only while the topic has subscribers, one poll at a time (the next is
 * scheduled when the last one ends, so a slow source never stacks calls). Each pool is pushed
 * once per instance: a pool address seen once is never pushed again, so a client that reconnects
 * is not sent a pair twice. The first poll after the feed wakes is its baseline: only the pools
 * it lists that were created since the wake are pushed; the rest were listed before anyone asked.
 */
import { createGeckoTerminalClient, type GeckoPool, type GeckoTerminalClient } from '../../market-apis/geckoterminal-client.ts';
import { updateText, type UpdateSink } from '../timing/stream-updates.ts';
import { newPoolRow } from './pool-lists.ts';

export const NEW_PAIRS_TOPIC = 'new-pairs';
/** One stream period: a pair reaches a subscriber at most this long after the source lists it. */
export const NEW_PAIRS_POLL_MS = 10_000;
/** Pool addresses remembered (oldest forgotten first); the source lists 20, so one leaves its list long before. */
export const NEW_PAIRS_SEEN_MAX = 10_000;

/** The pool addresses the feed has seen, in first-seen order, at most `max`. */
export interface SeenPools {
  has(address: string): boolean;
  add(address: string): void;
  readonly size: number;
}

export function createSeenPools(max: number = NEW_PAIRS_SEEN_MAX): SeenPools {
  const seen = new Set<string>();
  return {
    has: (address) => seen.has(address),
    add(address) {
      if (seen.has(address)) return;
      seen.add(address);
      if (seen.size > max) seen.delete(seen.values().next().value!);
    },
    get size() {
      return seen.size;
    },
  };
}

/**
 * The pools of one poll to push, oldest first (pure but for `seen`, which it updates): those not
 * seen before; on a baseline poll (`sinceMs` set) only those whose creation time is known and
 * not before `sinceMs` (the source says whole seconds, so the second of `sinceMs` counts).
 */
export function freshPools(list: readonly GeckoPool[], seen: SeenPools, sinceMs: number | null): GeckoPool[] {
  const since = sinceMs === null ? null : Math.floor(sinceMs / 1000) * 1000;
  const fresh: GeckoPool[] = [];
  for (const pool of list) {
    if (seen.has(pool.address)) continue;
    seen.add(pool.address);
    if (since === null || (pool.createdAt !== null && Date.parse(pool.createdAt) >= since)) fresh.push(pool);
  }
  const createdMs = (p: GeckoPool) => (p.createdAt === null ? Number.POSITIVE_INFINITY : Date.parse(p.createdAt));
  return fresh.sort((a, b) => createdMs(a) - createdMs(b) || a.address.localeCompare(b.address));
}

/** The feed's clock: what time it is, and one timer. Tests pass one they move. */
export interface FeedTimer {
  now(): number;
  /** Calls `fn` once after `ms`; returns what cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const SYSTEM_FEED_TIMER: FeedTimer = {
  now: Date.now,
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface NewPairsFeedConfig {
  readonly gecko: Pick<GeckoTerminalClient, 'pools'>;
  readonly sink: UpdateSink;
  /** The newest slot the service's Geyser stream delivered, for the update's `slot`; null: unknown. */
  readonly slot: () => number | null;
  readonly pollMs?: number;
  readonly timer?: FeedTimer;
  readonly fault: (err: unknown) => void;
}

export interface NewPairsFeedStatus {
  readonly polling: boolean;
  readonly polls: number;
  readonly failures: number;
  readonly pushed: number;
  readonly seen: number;
}

export interface NewPairsFeed {
  /** A socket subscribed: starts polling (a baseline poll at once) unless it already runs. */
  wake(): void;
  close(): void;
  status(): NewPairsFeedStatus;
}

/** Creates the feed; it polls nothing until `wake`. */
export function createNewPairsFeed(config: NewPairsFeedConfig): NewPairsFeed {
  const timer = config.timer ?? SYSTEM_FEED_TIMER;
  const pollMs = config.pollMs ?? NEW_PAIRS_POLL_MS;
  const seen = createSeenPools();
  const abort = new AbortController();
  const counts = { polls: 0, failures: 0, pushed: 0 };
  let running = false;
  let sinceMs: number | null = null;
  let cancel: (() => void) | null = null;

  function push(pools: readonly GeckoPool[]): void {
    const at = timer.now();
    const slot = config.slot() ?? 'unknown';
    for (const pool of pools) {
      config.sink.publish(NEW_PAIRS_TOPIC, updateText(NEW_PAIRS_TOPIC, slot, at, newPoolRow(pool, at)));
      counts.pushed++;
    }
  }

  async function poll(): Promise<void> {
    cancel = null;
    if (abort.signal.aborted || !config.sink.wanted(NEW_PAIRS_TOPIC)) {
      running = false;
      return;
    }
    counts.polls++;
    try {
      const list = await config.gecko.pools('new_pools', abort.signal);
      const fresh = freshPools(list, seen, sinceMs);
      sinceMs = null;
      if (!abort.signal.aborted) push(fresh);
    } catch (err) {
      counts.failures++;
      if (!abort.signal.aborted) config.fault(err);
    }
    if (abort.signal.aborted) running = false;
    else cancel = timer.after(pollMs, () => void poll());
  }

  return {
    wake() {
      if (running || abort.signal.aborted) return;
      running = true;
      sinceMs = timer.now();
      void poll();
    },
    close() {
      abort.abort();
      cancel?.();
      cancel = null;
      running = false;
    },
    status: () => ({ polling: running, ...counts, seen: seen.size }),
  };
}

/** The source the feed polls: the GeckoTerminal client /v1/new-pairs uses, at the configured URL. */
export function newPairsSource(baseUrl: string, timeoutMs: number): Pick<GeckoTerminalClient, 'pools'> {
  return createGeckoTerminalClient({ baseUrl, timeoutMs });
}

/**
 * A bounded TTL cache with single-flight loading: N concurrent requests for the same key make one
 * upstream call and share its result; a failed load is not cached. The only importer of
 * `lru-cache`. Callers stamp values with their slot or source time where freshness matters.
 */
import { LRUCache } from 'lru-cache';

export interface SingleFlightCacheConfig {
  /** Most entries kept (least recently used are evicted). */
  readonly max: number;
  /** How long a loaded value is served before it is loaded again. */
  readonly ttlMs: number;
  /** The monotonic clock the TTL runs on (ms); `performance.now()` unless a test moves its own. */
  readonly now?: () => number;
}

/** A cached value and when it was loaded. */
export interface Cached<V> {
  readonly value: V;
  readonly loadedAtMs: number;
  /** True when served from the cache or joined to a load already in flight. */
  readonly shared: boolean;
}

export interface SingleFlightCache<V> {
  /**
   * The cached value of `key`, or the result of `load`. The load runs detached from any one
   * caller: a caller that aborts stops waiting, the others still get the answer.
   */
  get(key: string, load: () => Promise<V>, signal?: AbortSignal): Promise<Cached<V>>;
  delete(key: string): void;
  readonly size: number;
}

/** `promise`, or the signal's reason as soon as `signal` aborts; the promise itself runs on. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Creates an empty cache. */
export function createSingleFlightCache<V extends object | string | number | boolean>(config: SingleFlightCacheConfig): SingleFlightCache<V> {
  // An injected clock is read on every call: lru-cache's default 1 ms reading cache would hide a test's step.
  const clock = config.now ? { perf: { now: config.now }, ttlResolution: 0 } : {};
  const entries = new LRUCache<string, { value: V; loadedAtMs: number }>({ max: config.max, ttl: config.ttlMs, ...clock });
  const inFlight = new Map<string, Promise<{ value: V; loadedAtMs: number }>>();
  return {
    async get(key, load, signal) {
      const hit = entries.get(key);
      if (hit) return { ...hit, shared: true };
      const running = inFlight.get(key);
      if (running) return { ...(await raceAbort(running, signal)), shared: true };
      const started = load()
        .then((value) => {
          const entry = { value, loadedAtMs: Date.now() };
          entries.set(key, entry);
          return entry;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, started);
      // Nobody may be left waiting when the first caller aborts: keep the rejection handled.
      started.catch(() => undefined);
      return { ...(await raceAbort(started, signal)), shared: false };
    },
    delete(key) {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}

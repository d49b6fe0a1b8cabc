/**
 * How busy the calling thread's event loop is: the worker pool runs its short tasks on the calling
 * thread only while it is not (worker-pool.ts, `inlineWhenIdle`).
 */
import { performance } from 'node:perf_hooks';

/** Event-loop utilization (0-1) above which the calling thread counts as busy: short tasks go to the workers. */
export const INLINE_MAX_LOOP_UTILIZATION = 0.6;
/** The window over which the utilization is read, ms: a burst turns tasks to the workers within it. */
export const LOOP_LOAD_WINDOW_MS = 50;

/**
 * The event loop's utilization over the last completed window, read lazily (no timer: a pool that
 * is not asked costs nothing). `elu` is node's `performance.eventLoopUtilization`, injectable.
 */
export function createLoopLoad(
  elu: typeof performance.eventLoopUtilization = performance.eventLoopUtilization.bind(performance),
  now: () => number = () => performance.now(),
): () => boolean {
  let mark = elu();
  let markAt = now();
  let busy = false;
  return () => {
    const t = now();
    if (t - markAt >= LOOP_LOAD_WINDOW_MS) {
      const next = elu();
      busy = elu(next, mark).utilization > INLINE_MAX_LOOP_UTILIZATION;
      mark = next;
      markAt = t;
    }
    return busy;
  };
}

/** The service's rule for short work on the event loop, told the requests in flight once it serves. */
export interface LoopRule {
  /** True when short work should leave the event loop (the pool's threads, the thread pool's fsync). */
  busy(): boolean;
  /** Names the count of requests in flight (the HTTP server's, the one in hand included). */
  countRequests(inFlight: () => number): void;
}

/**
 * Short work stays on the loop while the request in hand is the only one in flight, and none had
 * company over the last two windows, whatever the loop's utilization: nobody waits behind it, and a
 * hand-off would add a thread's wake-up to its own latency (a lone call's own work pushed the
 * utilization past the threshold and sent it to the threads: docs/payments.md). The recent peak
 * matters because a burst's first request is alone for a moment (the others are not parsed yet)
 * and its work belongs in the burst's batch. Otherwise the utilization decides as before.
 */
export function createLoopRule(load: () => boolean = createLoopLoad(), now: () => number = () => performance.now()): LoopRule {
  let inFlight: (() => number) | null = null;
  let windowAt = now();
  let peak = 0;
  let lastPeak = 0;
  return {
    busy() {
      if (inFlight === null) return load();
      const t = now();
      if (t - windowAt >= LOOP_LOAD_WINDOW_MS) {
        lastPeak = peak;
        peak = 0;
        windowAt = t;
      }
      peak = Math.max(peak, inFlight());
      return Math.max(peak, lastPeak) <= 1 ? false : load();
    },
    countRequests(count) {
      inFlight = count;
    },
  };
}

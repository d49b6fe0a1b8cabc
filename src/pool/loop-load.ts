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

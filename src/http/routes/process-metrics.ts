/**
 * The process's own health for /health: resident memory, V8 heap in use, and the event loop's
 * delay p99 over a recent window. A leak shows as RSS or heap that keeps growing under steady
 * load; CPU work on the loop shows as delay. Reading it is one memory query and one histogram
 * query.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** The event-loop delay p99 is over windows of this length; the last complete one is shown. */
export const LOOP_DELAY_WINDOW_MS = 10_000;
/** Sampling step of the delay histogram: fine enough for a p99, cheap enough to leave on. */
const LOOP_DELAY_RESOLUTION_MS = 10;

export interface ProcessSnapshot {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** The main thread's V8 heap as reserved from the system (used plus room until the next collection). */
  readonly heapTotalBytes: number;
  /** Memory of Buffers and other objects held outside the V8 heap by the main thread's objects. */
  readonly externalBytes: number;
  /** p99 of the event loop's delay over the last complete window (the current one before any). */
  readonly eventLoopDelayP99Ms: number | null;
  readonly eventLoopWindowMs: number;
}

export interface ProcessMetrics {
  snapshot(): ProcessSnapshot;
  /** Stops the histogram and its window timer. */
  close(): void;
}

export interface ProcessMetricsConfig {
  readonly windowMs?: number;
}

const NS_PER_MS = 1e6;

function p99Ms(histogram: IntervalHistogram): number | null {
  // An empty histogram reports its minimum as a huge sentinel; no sample means no figure.
  if (histogram.count === 0) return null;
  return Math.round((histogram.percentile(99) / NS_PER_MS) * 1000) / 1000;
}

/** Starts measuring the event loop's delay; memory is read when asked. */
export function createProcessMetrics(config: ProcessMetricsConfig = {}): ProcessMetrics {
  const windowMs = config.windowMs ?? LOOP_DELAY_WINDOW_MS;
  const histogram = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  histogram.enable();
  let lastWindowP99: number | null = null;
  // Reset per window so one stall does not stay in the p99 for the life of the process.
  const timer = setInterval(() => {
    lastWindowP99 = p99Ms(histogram);
    histogram.reset();
  }, windowMs);
  timer.unref();
  return {
    snapshot() {
      const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
      return {
        rssBytes: rss,
        heapUsedBytes: heapUsed,
        heapTotalBytes: heapTotal,
        externalBytes: external,
        eventLoopDelayP99Ms: lastWindowP99 ?? p99Ms(histogram),
        eventLoopWindowMs: windowMs,
      };
    },
    close() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}

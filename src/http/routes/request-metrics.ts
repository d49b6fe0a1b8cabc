/**
 * Request counters and a latency window for /health and /uptime. Recording is O(1) into a ring
 * buffer of the most recent durations; percentiles are computed only when asked for.
 */

/** Durations kept for latency percentiles (the most recent ones). */
export const LATENCY_WINDOW = 2048;
/** Percentiles are recomputed at most this often: sorting the window on every /health would cost more than the request. */
export const PERCENTILE_REFRESH_MS = 500;

export interface MetricsSnapshot {
  readonly total: number;
  readonly byStatusClass: Readonly<Record<string, number>>;
  readonly byStatus: Readonly<Record<string, number>>;
  readonly latencyMs: { readonly samples: number; readonly p50: number | null; readonly p95: number | null; readonly p99: number | null };
}

export interface RequestMetrics {
  record(status: number, durationMs: number): void;
  snapshot(): MetricsSnapshot;
}

function percentile(sorted: Float64Array, q: number): number | null {
  if (sorted.length === 0) return null;
  const idx = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, idx)]! * 1000) / 1000;
}

/** Creates an empty metrics recorder. */
export function createRequestMetrics(): RequestMetrics {
  const ring = new Float64Array(LATENCY_WINDOW);
  let next = 0;
  let filled = 0;
  let total = 0;
  const byStatus = new Map<number, number>();
  let cached: { at: number; latency: MetricsSnapshot['latencyMs'] } | null = null;
  const latency = (): MetricsSnapshot['latencyMs'] => {
    const now = performance.now();
    if (cached && now - cached.at < PERCENTILE_REFRESH_MS) return cached.latency;
    const sorted = ring.slice(0, filled).sort();
    cached = { at: now, latency: { samples: filled, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99) } };
    return cached.latency;
  };
  return {
    record(status, durationMs) {
      total++;
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      ring[next] = durationMs;
      next = (next + 1) % LATENCY_WINDOW;
      filled = Math.min(filled + 1, LATENCY_WINDOW);
    },
    snapshot() {
      const classes: Record<string, number> = {};
      const statuses: Record<string, number> = {};
      for (const [s, n] of [...byStatus].sort((a, b) => a[0] - b[0])) {
        statuses[String(s)] = n;
        const cls = `${Math.floor(s / 100)}xx`;
        classes[cls] = (classes[cls] ?? 0) + n;
      }
      return {
        total,
        byStatusClass: classes,
        byStatus: statuses,
        latencyMs: latency(),
      };
    },
  };
}

/**
 * The soak's traffic: open-loop streams of requests at fixed rates (each a kind: 402 challenges,
 * free reads, paid calls per network, dropped connections), every answer timed into an interval
 * recorder that the sampler empties every few seconds. Open loop so a slower service gets the
 * same offered load, not less; a cap on requests in flight keeps a stalled service from piling
 * up sockets in the load generator instead.
 */
import { connect } from 'node:net';

/** One kind of traffic: what to send, how often, how many at once at most. */
export interface Stream {
  readonly kind: string;
  readonly perSecond: number;
  readonly maxInFlight: number;
  /** Sends the i-th request; resolves true when its answer is the expected one. */
  readonly send: (i: number) => Promise<boolean>;
}

export interface KindInterval {
  readonly latenciesMs: number[];
  ok: number;
  failed: number;
  /** Not sent because maxInFlight requests were still running. */
  skipped: number;
}

/** Per-kind latencies and counts since the last `take()`, and over the whole run. */
export interface IntervalRecorder {
  record(kind: string, ms: number, ok: boolean): void;
  skip(kind: string): void;
  take(): Record<string, KindInterval>;
  /** Counts and latency percentiles of each kind since the recorder was created. */
  totals(): Record<string, Omit<KindInterval, 'latenciesMs'> & ReturnType<typeof latencySummary>>;
}

/** Creates an empty recorder. */
export function createIntervalRecorder(): IntervalRecorder {
  let current: Record<string, KindInterval> = {};
  const whole: Record<string, KindInterval> = {};
  const of = (table: Record<string, KindInterval>, kind: string): KindInterval => {
    table[kind] ??= { latenciesMs: [], ok: 0, failed: 0, skipped: 0 };
    return table[kind];
  };
  return {
    record(kind, ms, ok) {
      for (const k of [of(current, kind), of(whole, kind)]) {
        k.latenciesMs.push(ms);
        if (ok) k.ok++;
        else k.failed++;
      }
    },
    skip(kind) {
      of(current, kind).skipped++;
      of(whole, kind).skipped++;
    },
    take() {
      const taken = current;
      current = {};
      return taken;
    },
    totals: () => Object.fromEntries(Object.entries(whole).map(([kind, { latenciesMs, ...counts }]) => [kind, { ...counts, ...latencySummary(latenciesMs) }])),
  };
}

/** Runs `stream` until `signal` aborts; resolves once its last request has finished. */
export async function runStream(stream: Stream, recorder: IntervalRecorder, signal: AbortSignal): Promise<void> {
  const periodMs = 1000 / stream.perSecond;
  const running = new Set<Promise<void>>();
  const started = performance.now();
  for (let i = 0; !signal.aborted; i++) {
    if (running.size >= stream.maxInFlight) recorder.skip(stream.kind);
    else {
      const t0 = performance.now();
      const one: Promise<void> = stream
        .send(i)
        .catch(() => false)
        .then((ok) => recorder.record(stream.kind, performance.now() - t0, ok))
        .finally(() => running.delete(one));
      running.add(one);
    }
    // Scheduled against the start, so the rate does not drift with timer lateness.
    const wait = started + (i + 1) * periodMs - performance.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
  }
  await Promise.all(running);
}

/** A GET of `url` that should answer `status`; the body is read in full. */
export async function getExpecting(url: string, status: number, init: RequestInit = {}): Promise<boolean> {
  const res = await fetch(url, init);
  await res.arrayBuffer();
  return res.status === status;
}

/**
 * A client that goes away: writes `bytes` on a raw socket and destroys it after `closeAfterMs`
 * without reading. True when the service is still there to accept the connection.
 */
export async function writeAndDrop(port: number, bytes: string, closeAfterMs: number): Promise<boolean> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const connected = await new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('error', () => resolve(false));
  });
  if (connected) {
    socket.write(bytes);
    await new Promise((resolve) => setTimeout(resolve, closeAfterMs));
  }
  socket.destroy();
  return connected;
}

/** Raw requests a dropping client leaves behind: cut in the headers, whole but never read, mid-body. */
export const DROPPED_REQUESTS: readonly string[] = [
  'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ',
  'GET /v1/epoch HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  'GET /ledger?limit=400 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"jsonrpc":"2.0",',
];

function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** p50/p99 (ms, 0.1 ms) of one interval's latencies. */
export function latencySummary(latencies: readonly number[]): { readonly count: number; readonly p50Ms: number | null; readonly p99Ms: number | null } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
  return { count: sorted.length, p50Ms: round(percentile(sorted, 0.5)), p99Ms: round(percentile(sorted, 0.99)) };
}

/**
 * What the soak makes of its samples: whether memory growth flattened (least-squares slope over
 * the first and the last half, peak against end) and the time-series plot.
 */
import { type Panel, renderLineChart, type Series } from '../suite/svg-line-chart.ts';

/** One sample of the service, and the traffic of the interval that ended with it. */
export interface Sample {
  readonly tSeconds: number;
  readonly rssMiB: number;
  readonly heapUsedMiB: number;
  /** The V8 heap as reserved (null from a service that does not report it). */
  readonly heapTotalMiB: number | null;
  /** Memory held outside the V8 heap by its objects (Buffers). */
  readonly externalMiB: number | null;
  readonly eventLoopDelayP99Ms: number | null;
  /** p99 latency (ms) of each kind of traffic answered in the interval; null when none was. */
  readonly p99Ms: Readonly<Record<string, number | null>>;
}

/**
 * Below this slope (MiB per minute) over the last half, growth counts as flattened: at that rate
 * a day adds under 1.5 GiB, and a real leak under this load grows faster than the GC's noise.
 */
export const FLAT_SLOPE_MIB_PER_MIN = 1;

/** Least-squares slope of y over t, per minute. */
export function slopePerMinute(points: ReadonlyArray<readonly [number, number]>): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mt = points.reduce((s, [t]) => s + t, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const cov = points.reduce((s, [t, y]) => s + (t - mt) * (y - my), 0);
  const vt = points.reduce((s, [t]) => s + (t - mt) ** 2, 0);
  return vt === 0 ? 0 : (cov / vt) * 60;
}

export interface Growth {
  readonly firstHalfSlopeMiBPerMin: number;
  readonly lastHalfSlopeMiBPerMin: number;
  readonly startMiB: number;
  readonly peakMiB: number;
  readonly endMiB: number;
  readonly flattened: boolean;
}

const r1 = (v: number): number => Math.round(v * 100) / 100;

/**
 * The heap right after each major collection: the samples lower than both neighbours. The heap
 * saw-tooths between collections, so its raw slope says more about where the teeth fall than
 * about what stays alive; the troughs are the live heap.
 */
export function troughs(samples: readonly Sample[], pick: (s: Sample) => number): Sample[] {
  return samples.filter((s, i) => i > 0 && i < samples.length - 1 && pick(s) < pick(samples[i - 1]!) && pick(s) < pick(samples[i + 1]!));
}

/** Growth of one memory figure over the run. */
export function growthOf(samples: readonly Sample[], pick: (s: Sample) => number): Growth {
  const points = samples.map((s) => [s.tSeconds, pick(s)] as const);
  const half = Math.floor(points.length / 2);
  const last = slopePerMinute(points.slice(half));
  return {
    firstHalfSlopeMiBPerMin: r1(slopePerMinute(points.slice(0, half))),
    lastHalfSlopeMiBPerMin: r1(last),
    startMiB: r1(points[0]?.[1] ?? 0),
    peakMiB: r1(Math.max(...points.map(([, y]) => y))),
    endMiB: r1(points[points.length - 1]?.[1] ?? 0),
    flattened: last < FLAT_SLOPE_MIB_PER_MIN,
  };
}

const minutes = (s: Sample): number => Math.round((s.tSeconds / 60) * 1000) / 1000;
const seriesOf = (samples: readonly Sample[], name: string, pick: (s: Sample) => number | null): Series => ({
  name,
  points: samples.map((s) => [minutes(s), pick(s)] as const),
});

/** The four panels over time: memory, event-loop delay, paid p99, free p99. */
export function soakChart(samples: readonly Sample[], title: string, paidKinds: readonly string[], freeKinds: readonly string[]): string {
  const panels: Panel[] = [
    {
      title: 'Memory of the service process',
      yLabel: 'MiB',
      series: [
        seriesOf(samples, 'RSS', (s) => s.rssMiB),
        seriesOf(samples, 'V8 heap reserved', (s) => s.heapTotalMiB),
        seriesOf(samples, 'V8 heap used', (s) => s.heapUsedMiB),
        seriesOf(samples, 'outside the heap (Buffers)', (s) => s.externalMiB),
      ],
    },
    { title: 'Event-loop delay p99 (10 s window)', yLabel: 'ms', series: [seriesOf(samples, 'p99', (s) => s.eventLoopDelayP99Ms)] },
    { title: 'Paid-call p99 per interval', yLabel: 'ms', series: paidKinds.map((k) => seriesOf(samples, k, (s) => s.p99Ms[k] ?? null)) },
    { title: 'Free-call p99 per interval', yLabel: 'ms', series: freeKinds.map((k) => seriesOf(samples, k, (s) => s.p99Ms[k] ?? null)) },
  ];
  return renderLineChart({ title, xLabel: 'minutes since the load started', panels, columns: 2 });
}

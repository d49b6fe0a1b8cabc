/**
 * The suite report's plots, drawn from a results file with svg-line-chart.ts: throughput against
 * connections for the unpaid paths beside hello-world and the reference, the distribution of
 * paid-call latencies, and the ledger's append rate against its batch size. Each returns null
 * when its benchmark is missing from the results (a failed or skipped step).
 */
import { numberAt, median, TARGET_LABELS } from './suite-metrics.ts';
import { renderLineChart, type Series } from './svg-line-chart.ts';

/** `n thing` or `n things`. */
export const plural = (n: number, thing: string): string => `${n} ${thing}${n === 1 ? '' : 's'}`;

/** The plots' file names in the report's directory, and in docs/images/bench/. */
export const PLOT_FILES = { throughput: 'throughput.svg', paidLatency: 'paid-latency.svg', ledger: 'ledger-append.svg' } as const;

const list = (at: unknown): unknown[] => (Array.isArray(at) ? at : []);
const field = (o: unknown, key: string): unknown => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined);

/** Each target's median over the rounds at each swept connection count, of `key` (rps or CPU per request). */
export function sweepSeries(report: unknown, key: 'rps' | 'cpuUsPerRequest'): Series[] {
  const rounds = list(field(report, 'rounds'));
  const counts = list(field(report, 'sweptConnections')).filter((c): c is number => typeof c === 'number');
  return Object.entries(TARGET_LABELS)
    .map(([target, name]) => ({
      name,
      points: counts.map((c) => {
        const values = rounds.flatMap((r) =>
          list(field(r, 'sweep')).flatMap((p) => (numberAt(p, 'connections') === c ? (numberAt(p, key, target) ?? []) : [])),
        );
        return [c, median(values)] as const;
      }),
    }))
    .filter((s) => s.points.some(([, y]) => y !== null));
}

/** Throughput and CPU per request against connections, one line per path. */
export function throughputPlot(report: unknown): string | null {
  const rps = sweepSeries(report, 'rps');
  if (rps.length === 0) return null;
  return renderLineChart({
    title: `Unpaid paths: throughput vs connections (median of ${plural(list(field(report, 'rounds')).length, 'round')}, ${numberAt(report, 'seconds')} s each)`,
    xLabel: 'connections (log scale)',
    xLog2: true,
    columns: 2,
    panels: [
      { title: 'requests per second', yLabel: 'req/s', series: rps },
      { title: 'CPU of the serving process per request', yLabel: 'µs per request', series: sweepSeries(report, 'cpuUsPerRequest'), legend: 'none' },
    ],
  });
}

/** The empirical CDF of `latencies`: each sorted latency against the share of calls at or below it. */
export function cdfPoints(latencies: readonly number[]): Array<readonly [number, number]> {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted.map((ms, i) => [ms, (i + 1) / sorted.length] as const);
}

/** One CDF panel per network, one line per concurrency. */
export function paidLatencyPlot(report: unknown): string | null {
  const panels = ['solana', 'base'].flatMap((network) => {
    const series = list(field(field(report, network), 'levels')).flatMap((level) => {
      const latencies = list(field(field(level, 'paid'), 'latenciesMs')).filter((x): x is number => typeof x === 'number');
      const c = numberAt(level, 'concurrency');
      return latencies.length > 0 ? [{ name: `${c} client${c === 1 ? '' : 's'} (${latencies.length} calls)`, points: cdfPoints(latencies) }] : [];
    });
    return series.length > 0
      ? [
          {
            title: `paid calls on ${network === 'solana' ? 'Solana (localnet)' : 'Base (local EVM)'}`,
            yLabel: 'share of calls',
            series,
            legend: 'bottom-right' as const,
          },
        ]
      : [];
  });
  if (panels.length === 0) return null;
  return renderLineChart({ title: 'Paid-call latency distribution (CDF)', xLabel: 'latency (ms)', columns: 2, panels });
}

/** Appends per second (group commit and one fsync per append) and the mean batch reached, against appenders in flight. */
export function ledgerPlot(report: unknown): string | null {
  const points = list(field(field(report, 'batchSweep'), 'points'));
  if (points.length === 0) return null;
  const line = (name: string, key: string): Series => ({ name, points: points.map((p) => [numberAt(p, 'appenders') ?? 0, numberAt(p, key)] as const) });
  return renderLineChart({
    title: 'Ledger: durable append rate vs batch size',
    xLabel: 'appenders in flight (the largest batch; log scale)',
    xLog2: true,
    columns: 2,
    panels: [
      {
        title: 'durable appends per second',
        yLabel: 'appends/s',
        series: [line('group commit', 'groupCommitAppendsPerSecond'), line('one fsync per append (reference)', 'referenceAppendsPerSecond')],
      },
      { title: 'mean batch per fsync (group commit)', yLabel: 'appends per fsync', series: [line('group commit', 'meanBatch')] },
    ],
  });
}

/** Every plot the results allow, by file name. */
export function suitePlots(reports: Record<string, unknown>): Record<string, string> {
  const plots: Array<[string, string | null]> = [
    [PLOT_FILES.throughput, throughputPlot(reports['http-challenge'])],
    [PLOT_FILES.paidLatency, paidLatencyPlot(reports['paid-calls'])],
    [PLOT_FILES.ledger, ledgerPlot(reports.ledger)],
  ];
  return Object.fromEntries(plots.filter((p): p is [string, string] => p[1] !== null));
}

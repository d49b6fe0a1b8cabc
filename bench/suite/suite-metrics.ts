/**
 * The suite's results file and its headline metrics: the figures a user compares from one run to
 * the next (throughput, latency, CPU, memory, start-up), each with the direction that is better,
 * and the comparison of two results files as ratios new/old. The ratios have no threshold here;
 * regressions.ts flags a move of more than 20% the worse way against the last committed results.
 */
import { budgetMetrics } from './budget-metrics.ts';

/** One `npm run bench` suite run, as written to bench/results/<date>.json. */
export interface SuiteResults {
  readonly suite: 1;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly node: string;
    readonly platform: string;
    readonly totalMemoryMiB: number;
    /** `os.loadavg()` (1, 5 and 15 minutes) when the suite started and when it ended. */
    readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
  };
  readonly options: Record<string, unknown>;
  readonly steps: ReadonlyArray<{ readonly name: string; readonly seconds: number; readonly ok: boolean; readonly error?: string }>;
  readonly reports: Record<string, unknown>;
}

import type { Better, Metric } from './metric.ts';

export type { Better, Metric } from './metric.ts';

/** One row of the comparison: a metric in both runs and new/old. */
export interface Comparison {
  readonly id: string;
  readonly label: string;
  readonly better: Better;
  readonly previous: number | null;
  readonly current: number | null;
  readonly ratio: number | null;
}

/** The number at `path` under `root`, or null when any step is missing or it is not a finite number. */
export function numberAt(root: unknown, ...path: ReadonlyArray<string | number>): number | null {
  let at: unknown = root;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return null;
    at = (at as Record<string | number, unknown>)[key];
  }
  return typeof at === 'number' && Number.isFinite(at) ? at : null;
}

/** The lower middle of the numbers (a measured value, never an average of two). */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  return [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
}

const list = (root: unknown, ...path: string[]): unknown[] => {
  let at: unknown = root;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return Array.isArray(at) ? at : [];
};

export const TARGET_LABELS = {
  hello: 'bare uWS hello-world',
  bytes402: 'bare uWS writing our 402 bytes',
  bytes400: 'bare uWS writing our 400 bytes',
  peer402: 'bare uWS reading the peer address, then writing our 402 bytes',
  peer400: 'bare uWS reading the peer address, then writing our 400 bytes',
  challenge402: 'our 402 challenge',
  invalid400: 'our 400 (bad mint)',
  reference402: '@x402/express 402 (reference)',
} as const;

/** The ratios of the unpaid paths (issue 40's goals), as a reader names them. */
export const RATIO_LABELS = {
  challenge402VsHello: 'our 402 over hello-world',
  invalid400VsHello: 'our 400 over hello-world',
  challenge402VsReference: 'our 402 over @x402/express',
  invalid400VsReference: 'our 400 over @x402/express',
  bytes402VsHello: 'our 402 bytes written by bare uWS, over hello-world',
  bytes400VsHello: 'our 400 bytes written by bare uWS, over hello-world',
  challenge402VsBytes: 'our 402 over bare uWS writing its bytes',
  invalid400VsBytes: 'our 400 over bare uWS writing its bytes',
  peer402VsHello: 'our 402 bytes after the peer address read, over hello-world',
  peer400VsHello: 'our 400 bytes after the peer address read, over hello-world',
  challenge402VsPeer: 'our 402 over bare uWS reading the peer address and writing its bytes',
  invalid400VsPeer: 'our 400 over bare uWS reading the peer address and writing its bytes',
} as const;

/** Each target's median over the rounds at the ratio connection count, of `field`. */
export function challengeMedian(report: unknown, target: string, field: 'rps' | 'cpuUsPerRequest'): number | null {
  return median(list(report, 'rounds').flatMap((r) => numberAt(r, 'results', target, field) ?? []));
}

function challengeMetrics(hc: unknown): Metric[] {
  const at = numberAt(hc, 'connections');
  const out: Array<Omit<Metric, 'value'> & { value: number | null }> = [];
  for (const [target, label] of Object.entries(TARGET_LABELS)) {
    out.push({ id: `http.${target}.rps`, label: `${label}, req/s at ${at} connections`, better: 'higher', value: challengeMedian(hc, target, 'rps') });
    out.push({ id: `http.${target}.cpu`, label: `${label}, CPU µs per request`, better: 'lower', value: challengeMedian(hc, target, 'cpuUsPerRequest') });
  }
  for (const [k, label] of Object.entries(RATIO_LABELS))
    out.push({ id: `http.ratio.${k}`, label: `${label}, req/s ratio (median of rounds)`, better: 'higher', value: numberAt(hc, 'spreads', k, 'median') });
  return out.filter((m): m is Metric => m.value !== null);
}

function paidCallMetrics(pc: unknown): Metric[] {
  const out: Metric[] = [];
  for (const network of ['solana', 'base'])
    for (const level of list(pc, network, 'levels')) {
      const c = numberAt(level, 'concurrency');
      const add = (field: string, label: string, better: Better) => {
        const value = numberAt(level, 'paid', field);
        if (value !== null)
          out.push({ id: `paid.${network}.c${c}.${field}`, label: `paid calls on ${network}, ${c} client${c === 1 ? '' : 's'}: ${label}`, better, value });
      };
      add('perSecond', 'calls/s', 'higher');
      add('p50Ms', 'p50 ms', 'lower');
      add('p99Ms', 'p99 ms', 'lower');
    }
  return out;
}

const CHANNEL_SCHEMES = ['channel', 'exactBase', 'exactSolana', 'exactSolanaEarly'] as const;

/** The payment channels' figures: calls/s, p50 and the ratio to exact Base per concurrency; the sweep per scheme; the recovery. */
function channelMetrics(reports: Record<string, unknown>): Metric[] {
  const out: Array<Omit<Metric, 'value'> & { value: number | null }> = [];
  for (const level of list(reports['channel-calls'], 'levels')) {
    const c = numberAt(level, 'concurrency');
    out.push({ id: `channel.c${c}.perSecond`, label: `channel calls/s, ${c} clients`, better: 'higher', value: numberAt(level, 'channel', 'perSecond') });
    out.push({ id: `channel.c${c}.p50`, label: `channel p50 ms, ${c} clients`, better: 'lower', value: numberAt(level, 'channel', 'p50Ms') });
    // The official client's goals (issue 40) are one address's: its call and its paid request at 1 in flight.
    if (c === 1) {
      out.push({ id: 'official.c1.p50', label: 'official client p50 ms, 1 client', better: 'lower', value: numberAt(level, 'officialClient', 'p50Ms') });
      const paid = numberAt(level, 'officialClient', 'clientMs', 'paidRequest');
      out.push({ id: 'official.c1.paidRequest', label: "official client's paid request p50 ms, 1 client", better: 'lower', value: paid });
    }
    out.push({
      id: `channel.c${c}.vsBase`,
      label: `channel over exact Base, ${c} clients`,
      better: 'higher',
      value: numberAt(level, 'ratios', 'channelVsExactBase'),
    });
  }
  for (const key of CHANNEL_SCHEMES)
    out.push({ id: `sweep.${key}`, label: `sweep mints/s, ${key}`, better: 'higher', value: numberAt(reports.sweep, key, 'mintsPerSecond') });
  out.push({
    id: 'voucher.nativeUs',
    label: 'voucher recovery, native, µs',
    better: 'lower',
    value: numberAt(reports['voucher-recovery'], 'meanUs', 'native digest recovery'),
  });
  return out.filter((m): m is Metric => m.value !== null);
}

/** Metrics read at fixed paths: [id, label, better, report name, ...path]. */
const FIXED: ReadonlyArray<readonly [string, string, Better, string, ...string[]]> = [
  ['cpu.perCall', 'CPU µs per warm paid call', 'lower', 'paid-call-cpu', 'cpuUsPerCall'],
  ['cpu.ratio', 'CPU per paid call over its signature work', 'lower', 'paid-call-cpu', 'ratio'],
  ['cpu.perCallConcurrent', 'CPU µs per warm paid call, calls in flight together', 'lower', 'paid-call-cpu', 'concurrent', 'cpuUsPerCall'],
  ['ledger.group', 'ledger durable appends/s, group commit', 'higher', 'ledger', 'durableAppends', 'groupCommit', 'appendsPerSecond'],
  ['ledger.groupRatio', 'ledger group commit over one fsync per append', 'higher', 'ledger', 'durableAppends', 'groupCommit', 'ratioToReference'],
  ['ledger.proofP50', 'ledger inclusion proof at 1M leaves, p50 µs', 'lower', 'ledger', 'proofs', 'specProofAtFullSize', 'p50Us'],
  ['ledger.recovery', 'ledger recovery of a 1M-entry WAL, s', 'lower', 'ledger', 'recovery', 'seconds'],
  ['isolation.p999Ratio', "the 402's p99.9 on the default over a separate localnet", 'lower', 'localnet-isolation', 'ratios', 'challenge402P999'],
  ['isolation.idleLoopRatio', 'idle event-loop delay p99 on the default over a separate localnet', 'lower', 'localnet-isolation', 'ratios', 'idleLoopP99'],
  ['isolation.p999Ms', "the 402's p99.9 on the default, ms", 'lower', 'localnet-isolation', 'embedded', 'challenge402Ms', 'p999'],
  ...(['embedded', 'mainnet'] as const).flatMap((mode) => [
    [`startup.${mode}.built.ms`, `start-up, ${mode}, built, ms`, 'lower', 'startup', mode, 'built', 'listeningMs'] as const,
    [`startup.${mode}.built.rss`, `RSS after start-up, ${mode}, built, MiB`, 'lower', 'startup', mode, 'built', 'rssMiB'] as const,
    [`startup.${mode}.source.ms`, `start-up, ${mode}, sources, ms`, 'lower', 'startup', mode, 'source', 'listeningMs'] as const,
    [`idle.${mode}.rss`, `idle RSS, ${mode}, MiB`, 'lower', 'idle-memory', mode, 'rssMiB'] as const,
  ]),
];

/** The headline metrics present in a run's results. */
export function headlineMetrics(results: Pick<SuiteResults, 'reports'>): Metric[] {
  const r = results.reports;
  const fixed = FIXED.flatMap(([id, label, better, bench, ...path]) => {
    const value = numberAt(r[bench], ...path);
    return value === null ? [] : [{ id, label, better, value }];
  });
  const sweep = list(r.ledger, 'batchSweep', 'points').flatMap((p) => {
    const value = numberAt(p, 'groupCommitAppendsPerSecond');
    const n = numberAt(p, 'appenders');
    return value === null ? [] : [{ id: `ledger.sweep.${n}`, label: `ledger group commit appends/s, ${n} in flight`, better: 'higher' as const, value }];
  });
  return [...challengeMetrics(r['http-challenge']), ...paidCallMetrics(r['paid-calls']), ...fixed, ...sweep, ...channelMetrics(r), ...budgetMetrics(r)];
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Every headline metric of either run, in this run's order, with new/old where both have it. */
export function compareRuns(current: Pick<SuiteResults, 'reports'>, previous: Pick<SuiteResults, 'reports'>): Comparison[] {
  const now = headlineMetrics(current);
  const before = new Map(headlineMetrics(previous).map((m) => [m.id, m]));
  const rows: Comparison[] = now.map((m) => {
    const old = before.get(m.id)?.value ?? null;
    return { id: m.id, label: m.label, better: m.better, previous: old, current: m.value, ratio: old ? round3(m.value / old) : null };
  });
  const gone = [...before.values()].filter((m) => !now.some((n) => n.id === m.id));
  return [...rows, ...gone.map((m) => ({ id: m.id, label: m.label, better: m.better, previous: m.value, current: null, ratio: null }))];
}

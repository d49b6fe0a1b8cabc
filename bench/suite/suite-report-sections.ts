/**
 * The figure sections of the suite's markdown report, each rendered from one benchmark's report
 * in a results file: a plot where the suite draws one, then the table of the figures behind it.
 * A section whose benchmark is missing says so, so a failed step is visible rather than absent.
 */
import { numberAt } from './suite-metrics.ts';
import { PLOT_FILES, plural, sweepSeries } from './suite-plots.ts';

/** A figure for a table: thousands separated, small values to three significant digits, a dash when missing. */
export function fmt(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return String(Number(n.toPrecision(3)));
}

/** A markdown table from a header and rows of cells. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

const seconds = (ms: number | null) => fmt(ms === null ? null : ms / 1000);
const list = (at: unknown): unknown[] => (Array.isArray(at) ? at : []);
const field = (o: unknown, key: string): unknown => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined);
const missing = (name: string) => `No \`${name}\` figures in this run (see the steps above).`;
const image = (dir: string, file: string, alt: string, plots: Record<string, string>) => (plots[file] ? `![${alt}](${dir}/${file})\n\n` : '');

/** Requests per second against connections for each path (medians over the rounds). */
export function throughputSection(hc: unknown, dir: string, plots: Record<string, string>): string {
  const series = sweepSeries(hc, 'rps');
  if (series.length === 0) return `## Throughput vs connections\n\n${missing('http-challenge')}`;
  const counts = series[0]!.points.map(([c]) => c);
  const rows = counts.map((c, i) => [String(c), ...series.map((s) => fmt(s.points[i]?.[1]))]);
  return [
    '## Throughput vs connections',
    `${image(dir, PLOT_FILES.throughput, 'Throughput vs connections', plots)}Median req/s over ${plural(list(field(hc, 'rounds')).length, 'round')} of ${numberAt(hc, 'seconds')} s per point (load tool: ${String(field(hc, 'tool'))}); the localnet is frozen while a load runs.`,
    table(['connections', ...series.map((s) => s.name)], rows),
  ].join('\n\n');
}

/** Throughput and latency of paid calls per network and concurrency. */
export function paidSection(pc: unknown, dir: string, plots: Record<string, string>): string {
  if (pc === undefined) return `## Paid-call latency\n\n${missing('paid-calls')}`;
  const rows = ['solana', 'base'].flatMap((network) =>
    list(field(field(pc, network), 'levels')).map((level) => {
      const at = (k: string) => numberAt(level, 'paid', k);
      return [network, fmt(numberAt(level, 'concurrency')), fmt(at('requests')), fmt(at('failures')), fmt(at('perSecond')), fmt(at('p50Ms')), fmt(at('p99Ms'))];
    }),
  );
  return [
    '## Paid-call latency',
    `${image(dir, PLOT_FILES.paidLatency, 'Paid-call latency distribution', plots)}Each call a fresh payment to \`${String(field(pc, 'endpoint'))}\`, verified, settled and confirmed on the local chain (Solana at \`${String(field(field(pc, 'solana'), 'commitment'))}\`, 400 ms slots; Base on the local EVM, mined at once).`,
    table(['network', 'clients', 'calls', 'failed', 'calls/s', 'p50 ms', 'p99 ms'], rows),
  ].join('\n\n');
}

/** The append rate at each batch size, then the ledger's other figures. */
export function ledgerSection(ledger: unknown, dir: string, plots: Record<string, string>): string {
  if (ledger === undefined) return `## Ledger append rate vs batch size\n\n${missing('ledger')}`;
  const points = list(field(field(ledger, 'batchSweep'), 'points'));
  const rows = points.map((p) =>
    ['appenders', 'groupCommitAppendsPerSecond', 'meanBatch', 'maxBatch', 'referenceAppendsPerSecond'].map((k) => fmt(numberAt(p, k))),
  );
  const d = (k: string, ...path: string[]) => fmt(numberAt(ledger, k, ...path));
  return [
    '## Ledger append rate vs batch size',
    `${image(dir, PLOT_FILES.ledger, 'Ledger append rate vs batch size', plots)}Durable appends (write + fdatasync of the WAL) for ${numberAt(ledger, 'batchSweep', 'secondsPerPoint')} s per point; group commit writes what is waiting as one batch.`,
    table(['appenders in flight', 'group commit appends/s', 'mean batch', 'largest batch', 'one fsync per append, appends/s'], rows),
    [
      `At ${d('durableAppends', 'groupCommit', 'concurrency')} in flight: group commit ${d('durableAppends', 'groupCommit', 'appendsPerSecond')} appends/s, ${d('durableAppends', 'groupCommit', 'ratioToReference')}x one fsync per append.`,
      `Inclusion proof at ${d('proofs', 'leaves')} leaves: p50 ${d('proofs', 'specProofAtFullSize', 'p50Us')} µs, p99 ${d('proofs', 'specProofAtFullSize', 'p99Us')} µs.`,
      `Recovery of a ${d('recovery', 'entries')}-entry WAL (${d('recovery', 'walMiB')} MiB): ${d('recovery', 'seconds')} s.`,
    ].join(' '),
  ].join('\n\n');
}

/** Start-up time and memory in both modes, from the startup and idle-memory benchmarks. */
export function startupSection(startup: unknown, idle: unknown): string {
  if (startup === undefined && idle === undefined) return `## Start-up and memory\n\n${missing('startup')}`;
  const rows = ['embedded', 'mainnet'].map((mode) => {
    const s = (variant: string, k: string) => fmt(numberAt(startup, mode, variant, k));
    const i = (k: string) => fmt(numberAt(idle, mode, k));
    return [
      mode,
      s('source', 'listeningMs'),
      s('built', 'listeningMs'),
      s('source', 'rssMiB'),
      s('built', 'rssMiB'),
      i('rssMiB'),
      i('heapUsedMiB'),
      i('threads'),
    ];
  });
  return [
    '## Start-up and memory',
    `Start-up: spawn to \`listening\`, median of ${fmt(numberAt(startup, 'starts'))} starts each on a fresh data dir; RSS ${seconds(numberAt(startup, 'settleMs'))} s after. "sources" is \`npm run dev\` (tsx), "built" is \`npm start\`. Idle: the service from its sources, ${seconds(numberAt(idle, 'settleMs'))} s after start with no traffic.`,
    table(
      ['mode', 'start-up, sources (ms)', 'start-up, built (ms)', 'RSS, sources (MiB)', 'RSS, built (MiB)', 'idle RSS (MiB)', 'idle heap (MiB)', 'threads'],
      rows,
    ),
  ].join('\n\n');
}

/** CPU per warm paid call against the signature work it needs, and the Server-Timing split. */
export function cpuSection(cpu: unknown): string {
  if (cpu === undefined) return `## CPU per warm paid call\n\n${missing('paid-call-cpu')}`;
  const concurrent = field(cpu, 'concurrent');
  const threadsOf = (at: unknown) => (field(at, 'cpuUsPerCallByThread') ?? {}) as Record<string, number>;
  const names = [...new Set([...Object.keys(threadsOf(cpu)), ...Object.keys(threadsOf(concurrent))])];
  const phases = Object.entries((field(cpu, 'medianPhasesMs') ?? {}) as Record<string, number>);
  const both = (label: string, ...path: string[]) => [label, fmt(numberAt(cpu, ...path)), fmt(numberAt(concurrent, ...path))];
  return [
    '## CPU per warm paid call',
    `${fmt(numberAt(cpu, 'calls'))} Solana paid calls against the built service in mainnet mode (a child process), one after another, then as many again with ${fmt(numberAt(concurrent, 'concurrency'))} in flight at once; its CPU over all threads minus its idle CPU over as long, per call (a negative share is a thread busier at rest than during the calls). One at a time, the idle CPU subtracted is many times the calls' own, so that column is the noisier.`,
    table(
      ['µs', 'one at a time', 'all in flight'],
      [
        both('CPU per paid call', 'cpuUsPerCall'),
        ...names.map((name) => [`of which threads named \`${name}\``, fmt(threadsOf(cpu)[name] ?? null), fmt(threadsOf(concurrent)[name] ?? null)]),
        ["reference: the call's signature work", fmt(numberAt(cpu, 'referenceUs', 'totalUs')), ''],
        ['**ratio** (goal <= 2)', `**${fmt(numberAt(cpu, 'ratio'))}**`, `**${fmt(numberAt(concurrent, 'ratio'))}**`],
      ],
    ),
    table(
      ['phase (median)', 'ms'],
      phases.map(([name, ms]) => [name, fmt(ms)]),
    ),
  ].join('\n\n');
}

/** The top self time of the service's main thread under the 402 and 400 load, when profiled. */
export function profileSection(profiled: unknown): string {
  const profile = field(profiled, 'profile');
  if (profile === undefined) return '';
  const entries = list(field(profile, 'entries'));
  return [
    '## Hot path CPU profile',
    `The service's main thread under the 402 and 400 load (a separate, profiled run: \`--cpu-prof\` costs CPU, so the figures above come from runs without it): busy ${fmt(numberAt(profile, 'busyMs'))} ms of ${fmt(numberAt(profile, 'windowMs'))} ms under load.`,
    table(
      ['share of busy time', 'self ms', 'function'],
      entries.map((e) => [`${fmt((numberAt(e, 'share') ?? 0) * 100)}%`, fmt(numberAt(e, 'selfMs')), `\`${String(field(e, 'fn')).replace(/\|/g, '\\|')}\``]),
    ),
  ].join('\n\n');
}

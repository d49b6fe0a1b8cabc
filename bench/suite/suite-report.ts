/**
 * The suite's markdown report, rendered from a results file alone (never from the clock or the
 * machine), so `npm run bench -- report FILE` re-renders any past run: the run's machine and load,
 * its steps, the goals of issue 40 with their measured ratios, the figure sections with their
 * plots, the CPU budget of a paid call, and the comparison with the previous results file and the
 * last committed one as ratios new/old, a figure worse by more than 20% flagged.
 */
import { CEILING_KEYS } from '../http/challenge-ratios.ts';
import { type Comparison, compareRuns, numberAt, RATIO_LABELS, type SuiteResults } from './suite-metrics.ts';
import { suitePlots } from './suite-plots.ts';
import { budgetSection, channelSection } from './suite-channels.ts';
import { isRegression, REGRESSION_THRESHOLD, regressions } from './regressions.ts';
import { cpuSection, fmt, ledgerSection, paidSection, profileSection, startupSection, table, throughputSection } from './suite-report-sections.ts';

/** The report's markdown and its plots (SVG by file name, in the directory named after the run). */
export interface RenderedReport {
  readonly markdown: string;
  readonly plots: Record<string, string>;
}

/** An earlier run to compare with: its file's base name and its results. */
export interface PreviousRun {
  readonly name: string;
  readonly results: Pick<SuiteResults, 'reports' | 'machine'>;
}

const PCT = `${Math.round(REGRESSION_THRESHOLD * 100)}%`;
const loads = (xs: readonly number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
const field = (o: unknown, key: string): unknown => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined);

function header(name: string, results: SuiteResults): string {
  const m = results.machine;
  const minutes = (Date.parse(results.finishedAt) - Date.parse(results.startedAt)) / 60_000;
  return [
    `# Bench report ${name}`,
    [
      `Run from ${results.startedAt} to ${results.finishedAt} (${fmt(minutes)} min) by \`npm run bench\`; figures in [${name}.json](${name}.json).`,
      `Machine: ${m.cpus} cores (${m.cpuModel}), ${fmt(m.totalMemoryMiB)} MiB, ${m.platform}, Node ${m.node}.`,
      `Load average (1 / 5 / 15 min): ${loads(m.loadAverage.start)} at the start, ${loads(m.loadAverage.end)} at the end:`,
      'other work on the machine slows every figure, so compare ratios measured in the same run, and CPU per request, before raw rates.',
    ].join(' '),
  ].join('\n\n');
}

function steps(results: SuiteResults): string {
  const rows = results.steps.map((s) => [
    `\`${s.name}\``,
    `${fmt(s.seconds)} s`,
    s.ok ? 'done' : `failed: ${(s.error ?? '').split('\n')[0]!.replace(/\|/g, '\\|')}`,
  ]);
  return `## Steps\n\n${table(['step', 'time', 'result'], rows)}`;
}

const GOAL_ROWS = [
  ['challenge402VsHello', 'vsHello'],
  ['invalid400VsHello', 'vsHello'],
  ['challenge402VsReference', 'vsReference'],
  ['invalid400VsReference', 'vsReference'],
] as const;

/** The goals of issue 40 (the unpaid paths): each ratio per round (by req/s and by CPU per request) against its goal. */
function goals(results: SuiteResults): string {
  const hc = results.reports['http-challenge'];
  const rounds = Array.isArray(field(hc, 'rounds')) ? (field(hc, 'rounds') as unknown[]) : [];
  const rows = GOAL_ROWS.map(([key, goal]) => {
    const label = RATIO_LABELS[key];
    const perRound = (path: string[]) => rounds.map((r) => fmt(numberAt(r, 'ratios', ...path))).join(' / ');
    const met = field(field(field(hc, 'goals'), 'metInEveryRound'), key);
    return [label, `>= ${fmt(numberAt(hc, 'goals', goal))}`, perRound([key]), perRound(['cpu', key]), met === undefined ? '–' : met ? 'yes' : 'no'];
  });
  const cpu = results.reports['paid-call-cpu'];
  rows.push([
    'CPU per warm paid call over its signature work',
    '<= 2',
    fmt(numberAt(cpu, 'ratio')),
    '',
    cpu === undefined ? '–' : (numberAt(cpu, 'ratio') ?? 99) <= 2 ? 'yes' : 'no',
  ]);
  return [
    '## Goals of issue 40 (the unpaid paths)',
    `Unpaid paths at ${fmt(numberAt(hc, 'connections'))} connections, each round measured back to back; "by CPU" compares requests per CPU second of the serving processes, which moves less with other load.`,
    table(['goal', 'target', 'req/s ratio per round', 'by CPU per round', 'met in every round'], rows),
  ].join('\n\n');
}

/**
 * The same-bytes ceiling: bare uWS writing exactly our 402 and 400. Its ratio to hello-world is
 * what the reply's size alone allows; ours to it is what our work costs on top.
 */
function ceiling(results: SuiteResults): string {
  const hc = results.reports['http-challenge'];
  const rounds = Array.isArray(field(hc, 'rounds')) ? (field(hc, 'rounds') as unknown[]) : [];
  const rows = CEILING_KEYS.map((key) => {
    const perRound = (path: string[]) => rounds.map((r) => fmt(numberAt(r, 'ratios', ...path))).join(' / ');
    return [RATIO_LABELS[key], perRound([key]), perRound(['cpu', key])];
  });
  return [
    '## What the replies themselves cost',
    'A bare uWS server writing, byte for byte, the 402 and the 400 the service sent (status line, headers, body) and doing nothing else: the most any server sending those replies can reach. The `peer` rows first read the peer address (a `getpeername` per request in this uWS build), as every unpaid request of ours must for its per-client limit: the most a rate-limited path sending those replies can reach.',
    table(['ratio', 'req/s ratio per round', 'by CPU per round'], rows),
  ].join('\n\n');
}

/** The comparison table: each headline metric in both runs, new/old, which way is better, and the 20% flag. */
function comparisonTable(rows: readonly Comparison[], against: string): string {
  const flag = (r: Comparison) => (isRegression(r) ? '**REGRESSION**' : '');
  return table(
    ['figure', against, 'this run', 'new/old', 'better', `worse by > ${PCT}`],
    rows.map((r) => [r.label, fmt(r.previous), fmt(r.current), r.ratio === null ? '–' : r.ratio.toFixed(3), r.better, flag(r)]),
  );
}

/** The flagged figures in one sentence, bold when there are any. */
function flagSummary(rows: readonly Comparison[], against: PreviousRun): string {
  const flagged = regressions(rows);
  const load = `load average ${loads(against.results.machine.loadAverage.start)} at the start of ${against.name}`;
  if (flagged.length === 0) return `No figure is worse by more than ${PCT} than in ${against.name} (${load}).`;
  return `**${flagged.length} regression${flagged.length === 1 ? '' : 's'} over ${PCT}** against ${against.name} (${load}): ${flagged.map((r) => r.label).join('; ')}.`;
}

/** The comparison with the previous run, each figure flagged when worse by more than 20%. */
export function comparisonSection(rows: readonly Comparison[], previous: PreviousRun | null, committedName: string | null = null): string {
  if (!previous) return '## Compared with the previous run\n\nNo earlier results file in bench/results/: this run is the baseline for the next.';
  const committed = committedName === previous.name ? ', the last committed results' : '';
  return [
    `## Compared with [${previous.name}](${previous.name}.md)${committed}`,
    `Ratio new/old of each headline figure; "better" says which direction is an improvement; a figure worse by more than ${PCT} of its earlier value is flagged (docs/benchmarks.md). ${flagSummary(rows, previous)}`,
    comparisonTable(rows, previous.name),
  ].join('\n\n');
}

/** The comparison with the last committed results, when they are not the previous run (shown above then). */
export function committedSection(rows: readonly Comparison[], committed: PreviousRun | null, previousName: string | null): string {
  if (!committed) return '## Compared with the last committed results\n\nNo results file committed before this run in bench/results/ to compare with.';
  if (committed.name === previousName) return '';
  return [
    `## Compared with the last committed results, [${committed.name}](${committed.name}.md)`,
    `The figures of this run against the newest results file committed before it. ${flagSummary(rows, committed)}`,
    comparisonTable(rows, committed.name),
  ].join('\n\n');
}

/** Sections for the benchmarks the report has no figures section for: where their figures are. */
function others(results: SuiteResults, name: string): string {
  const shown = new Set([
    'http-challenge',
    'http-challenge-profile',
    'paid-calls',
    'ledger',
    'startup',
    'idle-memory',
    'paid-call-cpu',
    'channel-calls',
    'sweep',
  ]);
  const rest = Object.keys(results.reports).filter((k) => !shown.has(k));
  if (rest.length === 0) return '';
  return `## Other benchmarks\n\n${rest.map((k) => `\`${k}\``).join(', ')}: their reports (ratios against references measured in the same run) are under \`reports\` in [${name}.json](${name}.json); [docs/benchmarks.md](../../docs/benchmarks.md) explains each.`;
}

/** Renders the report of the run `name` (its file's base name) from its results. */
export function renderSuiteReport(name: string, results: SuiteResults, previous: PreviousRun | null, committed: PreviousRun | null = null): RenderedReport {
  const plots = suitePlots(results.reports);
  const r = results.reports;
  const sections = [
    header(name, results),
    steps(results),
    goals(results),
    ceiling(results),
    throughputSection(r['http-challenge'], name, plots),
    paidSection(r['paid-calls'], name, plots),
    ledgerSection(r.ledger, name, plots),
    startupSection(r.startup, r['idle-memory']),
    cpuSection(r['paid-call-cpu']),
    channelSection(r),
    profileSection(r['http-challenge-profile']),
    budgetSection(r),
    comparisonSection(previous ? compareRuns(results, previous.results) : [], previous, committed?.name ?? null),
    committedSection(committed ? compareRuns(results, committed.results) : [], committed, previous?.name ?? null),
    others(results, name),
  ];
  return { markdown: `${sections.filter((s) => s !== '').join('\n\n')}\n`, plots };
}

/**
 * Bench runner (`npm run bench -- --help` prints the usage below with every benchmark).
 *
 *   npm run bench                          the suite: every benchmark but the long and the PostgreSQL ones, one
 *                                          dated results file and its report (suite.ts), e.g. bench/results/2026-11-24.json
 *   npm run bench -- NAME [NAME...]        those benchmarks alone: a short summary for each (goals, ratios), its
 *                                          report in bench/results/NAME.json and a chart in bench/results/NAME.svg
 *   npm run bench -- NAME --json           the same, with the whole report printed as JSON instead of the summary
 *   npm run bench -- report [FILE]         re-render a results file's report (default: the newest)
 *   npm run bench -- compare [OLD] [NEW]   headline figures new/old, exit 1 when one is worse by > 20%
 *
 * Figures are ratios against a reference measured in the same run, so they compare across machines.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_OPTIONS, BENCHMARKS, type BenchValues, benchmark, httpOptions } from './bench-catalog.ts';
import { runCompare } from './suite/compare-command.ts';
import { latestResults, writeReport } from './suite/report-files.ts';
import { runChart } from './suite/run-chart.ts';
import { summaryLines } from './suite/run-summary.ts';
import { BUILD_STEP, runSuite, type SuiteStep } from './suite/suite.ts';

const RESULTS_DIR = join(import.meta.dirname, 'results');

/** The text of `--help`: the commands, every benchmark in one line, every option. */
function usage(): string {
  const width = Math.max(...BENCHMARKS.map((b) => b.name.length)) + 2;
  return [
    'usage: npm run bench [-- NAME... [options]] | [-- report [FILE]] | [-- compare [OLD] [NEW]]',
    '',
    '  (no name)             the suite: every benchmark marked * below, into bench/results/<date>.json and its report',
    '  NAME...               those benchmarks: a short summary each, the report in bench/results/NAME.json, a chart in NAME.svg',
    "  report [FILE]         render a results file's report again (default: the newest)",
    '  compare [OLD] [NEW]   headline figures new/old; exit 1 when one is worse by more than 20%',
    '',
    'benchmarks (* in the suite):',
    ...BENCHMARKS.map((b) => `  ${b.inSuite ? '*' : ' '} ${b.name.padEnd(width)}${b.summary}${b.options.length > 0 ? ` [--${b.options.join(', --')}]` : ''}`),
    '',
    'options:',
    ...Object.entries(BENCH_OPTIONS).map(([name, help]) => `  --${name.padEnd(16)} ${help}`),
    `  --${'json'.padEnd(16)} print each benchmark's whole report as JSON instead of its summary`,
    `  --${'help'.padEnd(16)} this text`,
  ].join('\n');
}

function fail(message: string): never {
  console.error(`bench: ${message}`);
  console.error('npm run bench -- --help lists the benchmarks and their options');
  process.exit(2);
}

function parse(): { values: BenchValues & { json?: boolean; help?: boolean }; positionals: string[] } {
  const options = Object.fromEntries(Object.keys(BENCH_OPTIONS).map((name) => [name, { type: 'string' as const }]));
  try {
    return parseArgs({ allowPositionals: true, options: { ...options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    // parseArgs's own sentence, without its stack: an unknown option is a usage error.
    fail((err as Error).message);
  }
}

/** A short run of the 402 and 400 alone under `--cpu-prof`, for the hot path's profile summary. */
async function profiledRun(values: BenchValues): Promise<Record<string, unknown>> {
  const profileDir = values.profile ?? mkdtempSync(join(tmpdir(), 'bench-profile-'));
  try {
    const { seconds } = httpOptions(values, true);
    const { benchHttpChallengeProfiled } = await import('./http/http-challenge.ts');
    return await benchHttpChallengeProfiled({ seconds, connections: [32], rounds: 1, only: ['challenge402', 'invalid400'], profileDir });
  } finally {
    // A directory of the suite's own making goes once summarized; one named with --profile stays.
    if (!values.profile) rmSync(profileDir, { recursive: true, force: true });
  }
}

/** The suite's steps: the build, the unpaid paths and their profile, then each benchmark of the suite in the catalog's order. */
function suiteSteps(values: BenchValues): SuiteStep[] {
  return [
    BUILD_STEP,
    { name: 'http-challenge', run: () => benchmark('http-challenge')!.run(values, true) },
    // The hot path's CPU profile, from a short run of its own: --cpu-prof would tax the figures above.
    { name: 'http-challenge-profile', run: () => profiledRun(values) },
    // The CPU per paid call is a step of its own below, so paid-calls skips its copy.
    { name: 'paid-calls', run: async () => (await import('./payments/paid-calls.ts')).benchPaidCalls({ cpu: false }) },
    ...BENCHMARKS.filter((b) => b.inSuite && b.name !== 'http-challenge' && b.name !== 'paid-calls').map((b) => ({
      name: b.name,
      run: () => b.run(values, true),
    })),
  ];
}

async function runNamed(names: readonly string[], values: BenchValues, json: boolean): Promise<void> {
  const unknown = names.filter((n) => !benchmark(n));
  if (unknown.length > 0) fail(`unknown benchmark ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  for (const name of names) {
    const start = loadavg()[0]!;
    const report = await benchmark(name)!.run(values, false);
    const file = join(RESULTS_DIR, `${name}.json`);
    writeFileSync(file, `${JSON.stringify({ ...report, at: new Date().toISOString() }, null, 2)}\n`);
    const chart = runChart(name, report);
    const chartFile = join(RESULTS_DIR, `${name}.svg`);
    if (chart) writeFileSync(chartFile, chart);
    if (json) {
      console.log(JSON.stringify(report, null, 2));
      continue;
    }
    console.log(summaryLines(name, report, { start, end: loadavg()[0]! }).join('\n'));
    console.log(`report: ${relative(process.cwd(), file)}${chart ? `, chart: ${relative(process.cwd(), chartFile)}` : ' (no chart: nothing to draw)'}`);
  }
}

const { values, positionals } = parse();
if (values.help) {
  console.log(usage());
  process.exit(0);
}
if (positionals.length === 0) {
  await runSuite(suiteSteps(values), { http: httpOptions(values, true) }, RESULTS_DIR);
} else if (positionals[0] === 'report') {
  const file = positionals[1] ?? latestResults(RESULTS_DIR);
  if (!file) fail(`no dated results file in ${RESULTS_DIR}: run \`npm run bench\` first`);
  const dir = positionals[1] ? dirname(positionals[1]) : RESULTS_DIR;
  const { written, regressions } = writeReport(dir, basename(file));
  console.log([...written, regressions].join('\n'));
} else if (positionals[0] === 'compare') {
  process.exit(runCompare(positionals.slice(1), RESULTS_DIR));
} else {
  await runNamed(positionals, values, values.json === true);
}
process.exit(0);

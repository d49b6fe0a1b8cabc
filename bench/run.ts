/**
 * Bench runner.
 *
 *   npm run bench                          the suite: every benchmark but the soak, one dated results
 *                                          file and its report (suite.ts), e.g. bench/results/2026-11-24.json
 *   npm run bench -- NAME [NAME...]        those benchmarks alone; each report to bench/results/NAME.json
 *   npm run bench -- report [FILE]         re-render a results file's report (default: the newest)
 *   npm run bench -- compare [OLD] [NEW]   headline figures new/old, exit 1 when one is worse by > 20%
 *                                          (default: the newest results against the last committed)
 *
 * Figures are ratios against a reference measured in the same run, so they compare across machines.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { benchBotClient } from './payments/bot-client.ts';
import { benchChannelCalls } from './payments/channel-calls.ts';
import { budgetRows, budgetTable } from './payments/cpu-budget-table.ts';
import { benchForensics } from './handlers/forensics.ts';
import { benchGeyserCaches } from './handlers/geyser-caches.ts';
import { benchHttpChallengeProfiled, type Target } from './http/http-challenge.ts';
import { benchIdleMemory } from './runtime/idle-memory.ts';
import { benchLedger } from './storage/ledger.ts';
import { benchTlogTiles } from './storage/tlog-tiles.ts';
import { benchTokenAnalysis } from './handlers/token-analysis.ts';
import { benchMarket } from './handlers/market.ts';
import { benchMcp } from './payments/mcp.ts';
import { benchPaidCallCpu } from './payments/paid-call-cpu.ts';
import { benchPaidCalls } from './payments/paid-calls.ts';
import { benchPgDrivers } from './storage/pg-drivers.ts';
import { benchPgInstances } from './storage/pg-instances.ts';
import { benchPgLedger } from './storage/pg-ledger.ts';
import { benchScalingModel } from './storage/scaling-model.ts';
import { benchPoolTasks } from './runtime/pool-tasks.ts';
import { benchRpcTransport } from './runtime/rpc-transport.ts';
import { benchVoucherRecovery } from './payments/voucher-recovery.ts';
import { runCompare } from './suite/compare-command.ts';
import { latestResults, writeReport } from './suite/report-files.ts';
import { benchStartup } from './runtime/startup.ts';
import { benchSvmEarly } from './payments/svm-early.ts';
import { benchSweep } from './payments/sweep.ts';
import { benchSoak } from './soak/soak.ts';
import { SOAK_MODES, type SoakMode } from './soak/soak-service.ts';
import { BUILD_STEP, runSuite, type SuiteStep } from './suite/suite.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string' },
    connections: { type: 'string' },
    minutes: { type: 'string', default: '10' },
    mode: { type: 'string', default: 'embedded' },
    'heap-snapshots': { type: 'string' },
    'snapshot-dir': { type: 'string' },
    rounds: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'string' },
  },
});
const RESULTS_DIR = join(import.meta.dirname, 'results');
const suite = positionals.length === 0;
/** http-challenge's defaults: one benchmark alone measures long at 32 connections; the suite sweeps briefly. */
const HTTP_DEFAULTS = suite ? { seconds: '3', connections: '1,8,32,128', rounds: '2' } : { seconds: '5', connections: '32', rounds: '3' };
const httpOptions = {
  seconds: Number(values.seconds ?? HTTP_DEFAULTS.seconds),
  connections: (values.connections ?? HTTP_DEFAULTS.connections).split(',').map(Number),
  rounds: Number(values.rounds ?? HTTP_DEFAULTS.rounds),
};

function soakMode(mode: string): SoakMode {
  if ((SOAK_MODES as readonly string[]).includes(mode)) return mode as SoakMode;
  console.error(`--mode must be one of ${SOAK_MODES.join(', ')}, not ${mode}`);
  process.exit(2);
}

const BENCHES: Record<string, () => Promise<Record<string, unknown>>> = {
  'bot-client': () => benchBotClient(),
  'channel-calls': () => benchChannelCalls(),
  forensics: () => benchForensics(),
  'http-challenge': () =>
    benchHttpChallengeProfiled({
      ...httpOptions,
      ...(values.only ? { only: values.only.split(',') as Target[] } : {}),
      ...(values.profile ? { profileDir: values.profile } : {}),
    }),
  ledger: () => benchLedger() as Promise<Record<string, unknown>>,
  'idle-memory': () => benchIdleMemory(),
  'geyser-caches': () => benchGeyserCaches(),
  'token-analysis': () => benchTokenAnalysis(),
  'tlog-tiles': () => benchTlogTiles(values.seconds ? { seconds: Number(values.seconds) } : {}),
  market: () => benchMarket(),
  mcp: () => benchMcp(),
  'paid-calls': () => benchPaidCalls(),
  'paid-call-cpu': async () => ({ name: 'paid-call-cpu', ...(await benchPaidCallCpu()) }),
  'pg-drivers': () => benchPgDrivers({ rounds: Number(values.rounds) }),
  'pg-ledger': () => benchPgLedger(values.seconds ? { seconds: Number(values.seconds) } : {}),
  'scaling-model': async () => benchScalingModel(),
  'pg-instances': () => benchPgInstances(values.seconds ? { seconds: Number(values.seconds) } : {}),
  'pool-tasks': () => benchPoolTasks(),
  'rpc-transport': () => benchRpcTransport(),
  'voucher-recovery': () => benchVoucherRecovery(),
  startup: () => benchStartup(),
  sweep: () => benchSweep(),
  'svm-early': () => benchSvmEarly(),
  soak: () =>
    benchSoak({
      minutes: Number(values.minutes),
      mode: soakMode(values.mode),
      snapshotAtMinutes: (values['heap-snapshots'] ?? '').split(',').filter(Boolean).map(Number),
      ...(values['heap-snapshots'] ? { heapSnapshotDir: values['snapshot-dir'] ?? join(RESULTS_DIR, 'heap') } : {}),
    }),
};

/** A short run of the 402 and 400 alone under `--cpu-prof`, for the hot path's profile summary. */
async function profiledRun(): Promise<Record<string, unknown>> {
  const profileDir = values.profile ?? mkdtempSync(join(tmpdir(), 'bench-profile-'));
  try {
    return await benchHttpChallengeProfiled({ seconds: httpOptions.seconds, connections: [32], rounds: 1, only: ['challenge402', 'invalid400'], profileDir });
  } finally {
    // A directory of the suite's own making goes once summarized; one named with --profile stays.
    if (!values.profile) rmSync(profileDir, { recursive: true, force: true });
  }
}

/** The suite's steps: the build, then each benchmark but the soak (minutes long, run on its own). */
const SUITE_STEPS: readonly SuiteStep[] = [
  BUILD_STEP,
  { name: 'http-challenge', run: () => benchHttpChallengeProfiled(httpOptions) },
  // The hot path's CPU profile, from a short run of its own: --cpu-prof would tax the figures above.
  { name: 'http-challenge-profile', run: () => profiledRun() },
  // The CPU per paid call is a step of its own below, so paid-calls skips its copy.
  { name: 'paid-calls', run: () => benchPaidCalls({ cpu: false }) },
  ...[
    'paid-call-cpu',
    'ledger',
    'startup',
    'idle-memory',
    'pool-tasks',
    'voucher-recovery',
    'channel-calls',
    'svm-early',
    'sweep',
    'forensics',
    'token-analysis',
    'market',
    'mcp',
    'geyser-caches',
    'tlog-tiles',
  ].map((name) => ({
    name,
    run: () => BENCHES[name]!(),
  })),
];

async function runNamed(names: readonly string[]): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  for (const name of names) {
    const bench = BENCHES[name];
    if (!bench) {
      console.error(`unknown benchmark ${name}; known: ${Object.keys(BENCHES).join(', ')}, or report [FILE], or compare [OLD] [NEW]`);
      process.exit(2);
    }
    const report = await bench();
    const file = join(RESULTS_DIR, `${name}.json`);
    writeFileSync(file, `${JSON.stringify({ ...report, at: new Date().toISOString() }, null, 2)}\n`);
    // A report with CPU budgets is read as their table; its JSON (thousands of lines) stays in the file.
    const rows = budgetRows(report);
    console.log(rows.length > 0 ? `${budgetTable(name, rows)}\nfull report: ${relative(process.cwd(), file)}` : JSON.stringify(report, null, 2));
  }
}

if (suite) {
  await runSuite(SUITE_STEPS, { http: httpOptions }, RESULTS_DIR);
} else if (positionals[0] === 'report') {
  const file = positionals[1] ?? latestResults(RESULTS_DIR);
  if (!file) {
    console.error(`no dated results file in ${RESULTS_DIR}: run \`npm run bench\` first`);
    process.exit(2);
  }
  const dir = positionals[1] ? dirname(positionals[1]) : RESULTS_DIR;
  const { written, regressions } = writeReport(dir, basename(file));
  console.log([...written, regressions].join('\n'));
} else if (positionals[0] === 'compare') {
  process.exit(runCompare(positionals.slice(1), RESULTS_DIR));
} else {
  await runNamed(positionals);
}
process.exit(0);

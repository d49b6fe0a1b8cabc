/**
 * Bench runner: `npm run bench` runs every benchmark but the soak (minutes long, run on its own),
 * `npm run bench -- NAME` one of them.
 * Prints each report and writes it to bench/results/NAME.json. Figures are ratios against a
 * reference measured in the same run, so they compare across machines.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchForensics } from './forensics.ts';
import { benchGeyserCaches } from './geyser-caches.ts';
import { benchHttpChallenge, type Target } from './http-challenge.ts';
import { benchIdleMemory } from './idle-memory.ts';
import { benchLedger } from './ledger.ts';
import { benchTokenAnalysis } from './token-analysis.ts';
import { benchMarket } from './market.ts';
import { benchMcp } from './mcp.ts';
import { benchPaidCallCpu } from './paid-call-cpu.ts';
import { benchPaidCalls } from './paid-calls.ts';
import { benchPgDrivers } from './pg-drivers.ts';
import { benchPoolTasks } from './pool-tasks.ts';
import { benchStartup } from './startup.ts';
import { benchSoak } from './soak.ts';
import { SOAK_MODES, type SoakMode } from './soak-service.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    minutes: { type: 'string', default: '10' },
    mode: { type: 'string', default: 'embedded' },
    'heap-snapshots': { type: 'string' },
    'snapshot-dir': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    profile: { type: 'string' },
  },
});
const seconds = Number(values.seconds);

function soakMode(mode: string): SoakMode {
  if ((SOAK_MODES as readonly string[]).includes(mode)) return mode as SoakMode;
  console.error(`--mode must be one of ${SOAK_MODES.join(', ')}, not ${mode}`);
  process.exit(2);
}
const connections = Number(values.connections);

const BENCHES: Record<string, () => Promise<Record<string, unknown>>> = {
  forensics: () => benchForensics(),
  'http-challenge': () =>
    benchHttpChallenge({
      seconds,
      connections,
      rounds: Number(values.rounds),
      ...(values.only ? { only: values.only.split(',') as Target[] } : {}),
      ...(values.profile ? { profileDir: values.profile } : {}),
    }),
  ledger: () => benchLedger() as Promise<Record<string, unknown>>,
  'idle-memory': () => benchIdleMemory(),
  'geyser-caches': () => benchGeyserCaches(),
  'token-analysis': () => benchTokenAnalysis(),
  market: () => benchMarket(),
  mcp: () => benchMcp(),
  'paid-calls': () => benchPaidCalls(),
  'paid-call-cpu': async () => ({ name: 'paid-call-cpu', ...(await benchPaidCallCpu()) }),
  'pg-drivers': () => benchPgDrivers({ rounds: Number(values.rounds) }),
  'pool-tasks': () => benchPoolTasks(),
  startup: () => benchStartup(),
  soak: () =>
    benchSoak({
      minutes: Number(values.minutes),
      mode: soakMode(values.mode),
      snapshotAtMinutes: (values['heap-snapshots'] ?? '').split(',').filter(Boolean).map(Number),
      ...(values['heap-snapshots'] ? { heapSnapshotDir: values['snapshot-dir'] ?? join(import.meta.dirname, 'results', 'heap') } : {}),
    }),
};

/** Run only when named: the soak takes `--minutes` (10 by default). */
const ON_REQUEST = new Set(['soak']);
const selected = positionals.length > 0 ? positionals : Object.keys(BENCHES).filter((name) => !ON_REQUEST.has(name));
const outDir = join(import.meta.dirname, 'results');
mkdirSync(outDir, { recursive: true });
for (const name of selected) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  const report = await bench();
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify({ ...report, at: new Date().toISOString() }, null, 2)}\n`);
  console.log(JSON.stringify(report, null, 2));
}
process.exit(0);

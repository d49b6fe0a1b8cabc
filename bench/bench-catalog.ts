/**
 * Every benchmark `npm run bench -- NAME` runs: its name, one line of what it measures (what
 * `--help` prints), the options it reads, and how it runs from the parsed options. The suite's
 * steps (run.ts) take their benchmarks from here too, so a name means one thing everywhere.
 */
import type { Target } from './http/http-challenge.ts';

// Each benchmark's module is loaded when it runs: `--help` and a run of one benchmark load no other.
const SOAK_MODES = ['embedded', 'mainnet'] as const;

/** The options a benchmark may read, as parsed from the command line (strings, as given). */
export type BenchValues = Readonly<Partial<Record<BenchOptionName, string>>>;

/** Every option of `npm run bench`, with its help line. */
export const BENCH_OPTIONS = {
  seconds: 'seconds per measurement (http-challenge, tlog-tiles, pg-ledger, pg-instances)',
  connections: 'comma-separated connection counts (http-challenge; default 32, the suite sweeps 1,8,32,128)',
  rounds: 'rounds of the measurement (http-challenge: default 3; pg-drivers)',
  only: 'comma-separated targets of http-challenge (e.g. challenge402,hello)',
  profile: 'directory for --cpu-prof profiles of http-challenge',
  minutes: 'length of the soak (default 10)',
  mode: `the soak's service: ${SOAK_MODES.join(' or ')} (default embedded)`,
  'heap-snapshots': 'comma-separated minutes at which the soak takes a heap snapshot',
  'snapshot-dir': 'where the soak writes heap snapshots (default bench/results/heap)',
  'service-root': 'localnet-isolation: the checkout whose build (dist/server/) to measure (default this one)',
} as const;
export type BenchOptionName = keyof typeof BENCH_OPTIONS;

/** One benchmark. */
export interface BenchEntry {
  readonly name: string;
  readonly summary: string;
  readonly options: readonly BenchOptionName[];
  /** Whether `npm run bench` (the suite) runs it. */
  readonly inSuite: boolean;
  run(values: BenchValues, suite: boolean): Promise<Record<string, unknown>>;
}

/** http-challenge's defaults: one benchmark alone measures long at 32 connections; the suite sweeps briefly. */
export function httpOptions(values: BenchValues, suite: boolean) {
  const defaults = suite ? { seconds: '3', connections: '1,8,32,128', rounds: '2' } : { seconds: '5', connections: '32', rounds: '3' };
  return {
    seconds: Number(values.seconds ?? defaults.seconds),
    connections: (values.connections ?? defaults.connections).split(',').map(Number),
    rounds: Number(values.rounds ?? defaults.rounds),
  };
}

const seconds = (values: BenchValues) => (values.seconds ? { seconds: Number(values.seconds) } : {});

function soakMode(mode: string): (typeof SOAK_MODES)[number] {
  if ((SOAK_MODES as readonly string[]).includes(mode)) return mode as (typeof SOAK_MODES)[number];
  throw new RangeError(`--mode must be one of ${SOAK_MODES.join(', ')}, not ${mode}`);
}

const entry = (name: string, summary: string, run: BenchEntry['run'], options: readonly BenchOptionName[] = [], inSuite = true): BenchEntry => ({
  name,
  summary,
  run,
  options,
  inSuite,
});

// biome-ignore format: a table, one benchmark per entry
export const BENCHMARKS: readonly BenchEntry[] = [
  entry('http-challenge', 'the unpaid 402 and 400 against bare uWS and @x402/express: req/s and CPU per request, as ratios', async (v, suite) =>
    (await import('./http/http-challenge.ts')).benchHttpChallengeProfiled({ ...httpOptions(v, suite), ...(v.only ? { only: v.only.split(',') as Target[] } : {}), ...(v.profile ? { profileDir: v.profile } : {}) }),
    ['seconds', 'connections', 'rounds', 'only', 'profile']),
  entry('paid-calls', 'real exact payments on Solana and Base: calls/s and p50/p99 at several concurrencies, beside the 402', async () => (await import('./payments/paid-calls.ts')).benchPaidCalls()),
  entry('paid-call-cpu', 'CPU per warm paid call of the built service, and over its signature work', async () => ({ name: 'paid-call-cpu', ...(await (await import('./payments/paid-call-cpu.ts')).benchPaidCallCpu()) })),
  entry('ledger', 'durable appends/s with group commit against one fsync per append, proofs, recovery of a 1M-entry WAL', async () => (await import('./storage/ledger.ts')).benchLedger() as Promise<Record<string, unknown>>),
  entry('startup', 'time to listening and settled memory, from the sources and from the build, in both modes', async () => (await import('./runtime/startup.ts')).benchStartup()),
  entry('idle-memory', 'idle resident memory and threads of the service in both modes', async () => (await import('./runtime/idle-memory.ts')).benchIdleMemory()),
  entry('localnet-isolation', "the 402's p99.9 and the idle event-loop p99 on the default against a separate localnet (goal: within 1.5x)", async (v) =>
    (await import('./runtime/localnet-isolation.ts')).benchLocalnetIsolation(v['service-root'] ? { serviceRoot: v['service-root'] } : {}), ['service-root']),
  entry('pool-tasks', "each payment task of the worker pool, direct against through the pool: the thread hop's cost", async () => (await import('./runtime/pool-tasks.ts')).benchPoolTasks()),
  entry('voucher-recovery', "a channel voucher's signer recovered natively against pure JavaScript", async () => (await import('./payments/voucher-recovery.ts')).benchVoucherRecovery()),
  entry('channel-calls', 'paid calls through a Base payment channel beside exact on Solana and Base: calls/s, p50, durable writes', async () => (await import('./payments/channel-calls.ts')).benchChannelCalls()),
  entry('bot-client', 'the client library against the official fetch wrapper, one Base channel each, one call in flight: p50 and calls/s', async () => (await import('./payments/bot-client.ts')).benchBotClient()),
  entry('streams', 'paid streams: Geyser event to a paying subscriber, p50 with one (the client library on a channel) and p99 with STREAMS_SUBSCRIBERS (default 1,000; Solana windows from loopback aliases), billed vs streamed time', async () => (await import('./payments/streams.ts')).benchStreams()),
  entry('svm-early', 'early answers on Solana against the confirmed path and the channel, end to end with the official clients', async () => (await import('./payments/svm-early.ts')).benchSvmEarly()),
  entry('sweep', '1000 mints through batch/token-risk paid three ways, with an RPC 25 ms away', async () => (await import('./payments/sweep.ts')).benchSweep()),
  entry('forensics', 'wallet-scan and tx-inspect, cold against cached, and single-flight under 16 identical calls', async () => (await import('./handlers/forensics.ts')).benchForensics()),
  entry('token-analysis', 'batch token-risk against sequential calls; holder bucketing direct against through the pool', async () => (await import('./handlers/token-analysis.ts')).benchTokenAnalysis()),
  entry('market', 'a slippage map of 8 sizes against one dex quote', async () => (await import('./handlers/market.ts')).benchMarket()),
  entry('mcp', 'the same calls over POST /mcp and over HTTP, as ratios', async () => (await import('./payments/mcp.ts')).benchMcp()),
  entry('geyser-caches', 'stream updates absorbed per second and the timing answers on mainnet-sized windows', async () => (await import('./handlers/geyser-caches.ts')).benchGeyserCaches()),
  entry('tlog-tiles', 'what a client checking every entry costs through tiles against /trust/proof', async (v) => (await import('./storage/tlog-tiles.ts')).benchTlogTiles(seconds(v)), ['seconds']),
  entry('rpc-transport', "CPU per Solana RPC request of the service's client, four transports", async () => (await import('./runtime/rpc-transport.ts')).benchRpcTransport(), [], false),
  entry('pg-drivers', 'PostgreSQL: durable appends of postgres against pg (needs PostgreSQL)', async (v) => (await import('./storage/pg-drivers.ts')).benchPgDrivers({ rounds: Number(v.rounds) }), ['rounds'], false),
  entry('pg-ledger', 'the file WAL against the ledger the database sequences, from 1 and 3 instances (needs PostgreSQL)', async (v) => (await import('./storage/pg-ledger.ts')).benchPgLedger(seconds(v)), ['seconds'], false),
  entry('pg-instances', 'paid calls/s from 1, 2 and 3 instances on one PostgreSQL (needs PostgreSQL)', async (v) => (await import('./storage/pg-instances.ts')).benchPgInstances(seconds(v)), ['seconds'], false),
  entry('scaling-model', 'the shared ledger and replay guard past one machine, a model fitted to pg-ledger and pg-drivers', async () => (await import('./storage/scaling-model.ts')).benchScalingModel(), [], false),
  entry('soak', 'minutes of mixed load on the real service (--minutes, default 10): memory, latency and errors over time', async (v) =>
    (await import('./soak/soak.ts')).benchSoak({
      minutes: Number(v.minutes ?? '10'),
      mode: soakMode(v.mode ?? 'embedded'),
      snapshotAtMinutes: (v['heap-snapshots'] ?? '').split(',').filter(Boolean).map(Number),
      ...(v['heap-snapshots'] ? { heapSnapshotDir: v['snapshot-dir'] ?? new URL('./results/heap', import.meta.url).pathname } : {}),
    }), ['minutes', 'mode', 'heap-snapshots', 'snapshot-dir'], false),
];

/** The benchmark of that name. */
export const benchmark = (name: string): BenchEntry | undefined => BENCHMARKS.find((b) => b.name === name);

/**
 * Soak (issue 15): the real service as a child process, started as a user starts it (embedded
 * mode, or the build in mainnet mode against a localnet in this process: soak-service.ts), under
 * minutes of mixed load: 402 challenges on several paid paths, free reads, paid calls
 * at a steady rate with the official x402 client on Solana and Base, clients dropping connections
 * (raw sockets cut mid-request, and paid requests dropped while they settle, then retried as an
 * x402 client would). Every SAMPLE_INTERVAL_MS it reads the service's RSS, heap and event-loop
 * delay from /health and the interval's p99 per kind of traffic. Reports whether memory growth
 * flattened and writes the plot to bench/results/soak.svg.
 *
 *   npm run bench -- soak [--minutes 10] [--mode embedded|mainnet] [--heap-snapshots 12,20 [--snapshot-dir DIR]]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOOP_DELAY_WINDOW_MS } from '../../src/http/routes/process-metrics.ts';
import {
  createIntervalRecorder,
  DROPPED_REQUESTS,
  type IntervalRecorder,
  getExpecting,
  latencySummary,
  runStream,
  type Stream,
  writeAndDrop,
} from './soak-load.ts';
import { type Clients, createClients, droppedPaidCall, type LocalnetTarget, payingFetch } from './soak-payers.ts';
import { type SoakMode, startSoakService } from './soak-service.ts';
import { growthOf, type Sample, soakChart, troughs } from './soak-report.ts';

/** One sample per event-loop window, so each delay figure is its own window's. */
const SAMPLE_INTERVAL_MS = LOOP_DELAY_WINDOW_MS;
const MIB = 1024 * 1024;
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const CHALLENGE_PATHS = ['/v1/epoch', '/v1/tipfloor', '/v1/priority-fee', '/v1/trending-tokens', `/v1/smri?mint=${MINT}`, `/v1/token-risk?mint=${MINT}`];
const FREE_PATHS = ['/health', '/ledger?limit=100', '/trust/checkpoint', 'proof', '/.well-known/x402', '/openapi.json', '/llms.txt', '/pricing'];
const PAID_PATHS = ['/v1/epoch', '/v1/priority-fee', '/v1/epoch?rate=both'];
/** Offered load, per second: modest, so a 2-core machine shared with others is not saturated. */
const RATES = { challenge: 40, free: 40, paidSolana: 2, paidBase: 1, dropped: 2, droppedPaid: 0.1 } as const;
/** A Solana payment waits about a slot for `confirmed`: 300 ms in, the settlement is under way. */
const DROP_PAID_AFTER_MS = 300;
export const PAID_KINDS = ['paid-solana', 'paid-base'] as const;
export const FREE_KINDS = ['free', 'challenge-402'] as const;

interface DroppedPaidTally {
  readonly outcomes: Record<string, number>;
  readonly lost: string[];
}

function streams(target: LocalnetTarget, clients: Clients, ledgerSize: () => number, tally: DroppedPaidTally): Stream[] {
  const { outcomes: droppedPaid, lost: lostAnswers } = tally;
  const url = target.serviceUrl;
  const pays = { solana: payingFetch(clients.solana), base: payingFetch(clients.base) };
  const freePath = (i: number): string => {
    const path = FREE_PATHS[i % FREE_PATHS.length]!;
    if (path !== 'proof') return path;
    return ledgerSize() > 0 ? `/trust/proof?index=${i % ledgerSize()}` : '/health';
  };
  return [
    {
      kind: 'challenge-402',
      perSecond: RATES.challenge,
      maxInFlight: 32,
      send: (i) => getExpecting(`${url}${CHALLENGE_PATHS[i % CHALLENGE_PATHS.length]}`, 402),
    },
    { kind: 'free', perSecond: RATES.free, maxInFlight: 32, send: (i) => getExpecting(`${url}${freePath(i)}`, 200) },
    { kind: 'paid-solana', perSecond: RATES.paidSolana, maxInFlight: 16, send: (i) => paidOk(pays.solana, `${url}${PAID_PATHS[i % PAID_PATHS.length]}`) },
    { kind: 'paid-base', perSecond: RATES.paidBase, maxInFlight: 8, send: (i) => paidOk(pays.base, `${url}${PAID_PATHS[i % PAID_PATHS.length]}`) },
    {
      kind: 'dropped',
      perSecond: RATES.dropped,
      maxInFlight: 16,
      send: (i) => writeAndDrop(target.port, DROPPED_REQUESTS[i % DROPPED_REQUESTS.length]!, i % 20),
    },
    {
      kind: 'dropped-paid',
      perSecond: RATES.droppedPaid,
      maxInFlight: 2,
      send: async (i) => {
        const network = i % 2 === 0 ? 'solana' : 'base';
        const outcome = await droppedPaidCall(target, clients[network], PAID_PATHS[0]!, DROP_PAID_AFTER_MS);
        const seen = (droppedPaid[`${network} ${outcome.kind}`] ?? 0) + 1;
        droppedPaid[`${network} ${outcome.kind}`] = seen;
        if (outcome.kind === 'lost') lostAnswers.push(`${network}: ${outcome.answer}`);
        return outcome.kind !== 'lost';
      },
    },
  ];
}

async function paidOk(pay: typeof fetch, url: string): Promise<boolean> {
  const res = await pay(url);
  await res.arrayBuffer();
  return res.status === 200 && res.headers.has('x-service-receipt');
}

interface Health {
  readonly process: { rssBytes: number; heapUsedBytes: number; heapTotalBytes?: number; externalBytes?: number; eventLoopDelayP99Ms: number | null };
  readonly ledger: { entries: number };
}

const readHealth = async (url: string): Promise<Health> => (await (await fetch(`${url}/health`)).json()) as Health;

function sampleOf(health: Health, tSeconds: number, traffic: ReturnType<ReturnType<typeof createIntervalRecorder>['take']>): Sample {
  const p99Ms = Object.fromEntries(Object.entries(traffic).map(([kind, k]) => [kind, latencySummary(k.latenciesMs).p99Ms]));
  return {
    tSeconds: Math.round(tSeconds * 10) / 10,
    rssMiB: Math.round((health.process.rssBytes / MIB) * 10) / 10,
    heapUsedMiB: Math.round((health.process.heapUsedBytes / MIB) * 10) / 10,
    heapTotalMiB: health.process.heapTotalBytes === undefined ? null : Math.round((health.process.heapTotalBytes / MIB) * 10) / 10,
    externalMiB: health.process.externalBytes === undefined ? null : Math.round((health.process.externalBytes / MIB) * 10) / 10,
    eventLoopDelayP99Ms: health.process.eventLoopDelayP99Ms,
    p99Ms,
  };
}

/** What sampling does besides sampling: keep the ledger size, and take heap snapshots at given minutes. */
interface SamplingHooks {
  readonly onLedger: (entries: number) => void;
  readonly snapshotAtMinutes: readonly number[];
  readonly snapshot: () => void;
}

/** Samples /health every SAMPLE_INTERVAL_MS until `minutes` have passed since `t0`. */
async function sampleFor(minutes: number, url: string, recorder: IntervalRecorder, hooks: SamplingHooks): Promise<Sample[]> {
  const samples: Sample[] = [];
  const snapshotsDue = [...hooks.snapshotAtMinutes].sort((a, b) => a - b);
  const t0 = performance.now();
  while (performance.now() - t0 < minutes * 60_000) {
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_INTERVAL_MS));
    if (snapshotsDue.length > 0 && performance.now() - t0 >= snapshotsDue[0]! * 60_000) {
      snapshotsDue.shift();
      hooks.snapshot();
    }
    const health = await readHealth(url);
    hooks.onLedger(health.ledger.entries);
    const sample = sampleOf(health, (performance.now() - t0) / 1000, recorder.take());
    samples.push(sample);
    console.error(
      `soak ${sample.tSeconds}s rss ${sample.rssMiB} MiB heap ${sample.heapUsedMiB} MiB loop p99 ${sample.eventLoopDelayP99Ms} ms p99 ${JSON.stringify(sample.p99Ms)}`,
    );
  }
  return samples;
}

const loads = (): number[] => loadavg().map((l) => Math.round(l * 100) / 100);

export interface SoakOptions {
  readonly minutes: number;
  readonly mode: SoakMode;
  /** Minutes into the load at which the service writes a heap snapshot into `heapSnapshotDir`. */
  readonly snapshotAtMinutes: readonly number[];
  readonly heapSnapshotDir?: string;
}

/** Runs the soak and returns its report (the plot is written beside the JSON). */
export async function benchSoak(options: SoakOptions): Promise<Record<string, unknown>> {
  const { minutes, mode } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-soak-'));
  const soakService = await startSoakService(mode, dataDir, options.heapSnapshotDir);
  try {
    const target = soakService.target;
    const clients = await createClients(target);
    const idle = await readHealth(target.serviceUrl);
    let ledgerSize = idle.ledger.entries;
    const recorder = createIntervalRecorder();
    const stop = new AbortController();
    const loadAvgStart = loads();
    const tally: DroppedPaidTally = { outcomes: {}, lost: [] };
    const running = streams(target, clients, () => ledgerSize, tally).map((s) => runStream(s, recorder, stop.signal));
    const samples = await sampleFor(minutes, target.serviceUrl, recorder, {
      onLedger: (entries) => (ledgerSize = entries),
      snapshotAtMinutes: options.heapSnapshotDir ? options.snapshotAtMinutes : [],
      snapshot: soakService.snapshot,
    });
    stop.abort();
    await Promise.all(running);
    const outDir = join(import.meta.dirname, '..', 'results');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(
      join(outDir, 'soak.svg'),
      soakChart(samples, `Soak: ${minutes} min of mixed load against the service (${mode} mode)`, PAID_KINDS, FREE_KINDS),
    );
    return {
      name: 'soak',
      minutes,
      mode,
      sampleIntervalMs: SAMPLE_INTERVAL_MS,
      offeredPerSecond: RATES,
      machine: { cores: availableParallelism(), loadAvgStart, loadAvgEnd: loads() },
      idle: { rssMiB: Math.round(idle.process.rssBytes / MIB), heapUsedMiB: Math.round(idle.process.heapUsedBytes / MIB) },
      growth: {
        rss: growthOf(samples, (s) => s.rssMiB),
        heapUsed: growthOf(samples, (s) => s.heapUsedMiB),
        liveHeapAfterCollections: growthOf(
          troughs(samples, (s) => s.heapUsedMiB),
          (s) => s.heapUsedMiB,
        ),
      },
      totals: recorder.totals(),
      ledgerEntries: ledgerSize,
      droppedPaid: tally,
      plot: 'bench/results/soak.svg',
      samples,
    };
  } finally {
    await soakService.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

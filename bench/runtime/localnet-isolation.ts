/**
 * Does the embedded localnet stay off the service's event loop? The built service is measured
 * twice as a user starts it: on the default (`npm start`, the embedded localnet) and in mainnet
 * mode against a localnet started alone in its own process (`npm run localnet`), the reference.
 * Both run at once and are measured at the same moments, so the machine's other work falls on both
 * alike: the event loop's delay p99 while idle (the median of IDLE_WINDOWS /health windows after
 * IDLE_SETTLE_MS, read together; the worst is kept too), then CALLS sequential unpaid calls to each on one kept-alive
 * connection, taking turns, each a 402, timed from request to last byte (p50, p99, p99.9, max),
 * and the resident memory of each service and of its localnet. The goal: on the default, the 402's p99.9 and the idle delay p99 within
 * GOAL_RATIO of the reference's.
 *
 *   npm run bench -- localnet-isolation [--service-root DIR]
 *
 * `--service-root` runs the build of another checkout (its `dist/server/main.js`), to compare a
 * version before a change with the one after on the same machine in the same hour.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnLocalnet } from '../harness/bench-processes.ts';
import { loadOrCreateEvmKey } from '../../src/chain/keys/evm-key-file.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const IDLE_SETTLE_MS = 15_000;
/** /health's delay p99 is per 10 s window; these many windows are read while idle. */
const IDLE_WINDOWS = 5;
const WINDOW_MS = 10_000;
const CALLS = 4_000;
const START_TIMEOUT_MS = 180_000;
/** The default's figures may be at most this many times the reference's. */
export const GOAL_RATIO = 1.5;

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  /** The embedded localnet's process, when the service started one. */
  readonly localnetPid: number | null;
}

function startService(root: string, dataDir: string, args: readonly string[]): Promise<Started> {
  const child = spawn(
    process.execPath,
    ['dist/server/main.js', '--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--free-rate-per-second', '0', ...args],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start within ${START_TIMEOUT_MS} ms:\n${out}`)), START_TIMEOUT_MS);
    child.once('exit', (code) => reject(new Error(`the service exited (code ${code}) before listening:\n${out}`)));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const url = /^listening (http:\/\/\S+)/m.exec(out)?.[1];
      if (!url) return;
      clearTimeout(timer);
      const pid = /^localnet ready in .*\(process (\d+)/m.exec(out)?.[1];
      resolve({ child, url, localnetPid: pid ? Number(pid) : null });
    });
  });
}

function rssMiB(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    const kib = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
    return Math.round(kib / 1024);
  } catch {
    return null;
  }
}

/** The worst /health delay window of each service, read at the same moments (both idle). */
async function idleLoopP99s(urls: readonly string[]): Promise<number[][]> {
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  const windows: number[][] = urls.map(() => []);
  for (let i = 0; i < IDLE_WINDOWS; i++) {
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    const read = await Promise.all(
      urls.map(async (url) => ((await (await fetch(`${url}/health`)).json()) as { process: { eventLoopDelayP99Ms: number } }).process.eventLoopDelayP99Ms),
    );
    for (const [k, p99] of read.entries()) windows[k]!.push(p99);
  }
  return windows;
}

function get402(agent: Agent, url: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(url, { agent }, (res) => {
      if (res.statusCode !== 402) reject(new Error(`expected 402, got ${res.statusCode}`));
      res.resume();
      res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
    });
    req.on('error', reject);
    req.end();
  });
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (ms: number): number => Math.round(ms * 100) / 100;

/**
 * CALLS 402s from each service, one after the other in turn (which goes first alternates), so
 * that whatever else the machine runs at a moment falls on both alike: on a shared machine a
 * measurement of one and then of the other compares two different minutes, not two services.
 */
async function interleaved402s(urls: readonly string[]): Promise<number[][]> {
  const agents = urls.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
  const targets = urls.map((url) => new URL('/v1/epoch', url));
  const times: number[][] = urls.map(() => []);
  try {
    for (let i = 0; i < CALLS; i++) {
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) times[k]!.push(await get402(agents[k]!, targets[k]!));
    }
  } finally {
    for (const agent of agents) agent.destroy();
  }
  return times;
}

function figures(service: Started, idle: readonly number[], times: number[]): Record<string, unknown> {
  times.sort((a, b) => a - b);
  return {
    // The median window: one window's p99 is already the tail of 10 s, and the worst of several
    // on a shared machine says more about the neighbours than about the service (all are kept).
    idleLoopP99Ms: [...idle].sort((a, b) => a - b)[Math.floor(idle.length / 2)]!,
    idleLoopP99WorstMs: Math.max(...idle),
    idleLoopP99WindowsMs: idle,
    challenge402Ms: { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), p999: round(percentile(times, 99.9)), max: round(times.at(-1)!) },
    rssMiB: { service: rssMiB(service.child.pid ?? null), localnet: rssMiB(service.localnetPid) },
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The mainnet-mode flags that point the service at a localnet of its own. */
function separateArgs(lines: Awaited<ReturnType<typeof spawnLocalnet>>['lines'], relayerKey: string, evmUrl: string): string[] {
  loadOrCreateEvmKey(relayerKey);
  const { rpc, geyser, market, stablecoin, usdc } = lines;
  return [
    ...['--rpc-url', rpc, '--geyser-url', geyser, '--evm-rpc-url', evmUrl, '--evm-relayer-key', relayerKey],
    ...['--svm-pay-to', stablecoin, '--svm-asset', stablecoin, '--evm-pay-to', usdc, '--evm-asset', usdc],
    ...['--jupiter-url', market, '--geckoterminal-url', market, '--magiceden-url', market, '--lending-url', market],
  ];
}

/** Runs both configurations and returns the report. */
export async function benchLocalnetIsolation(options: { readonly serviceRoot?: string } = {}): Promise<Record<string, unknown>> {
  const root = options.serviceRoot ?? REPO_ROOT;
  const dir = mkdtempSync(join(tmpdir(), 'bench-isolation-'));
  const loadAtStart = loadavg()[0]!;
  const localnet = await spawnLocalnet();
  const started: Started[] = [];
  try {
    // Both at once: the default, and the reference against a localnet of its own.
    started.push(await startService(root, join(dir, 'embedded'), []));
    const evmUrl = /^localnet evm (\S+)/m.exec(localnet.process.stdout())![1]!;
    const reference = await startService(root, join(dir, 'separate'), separateArgs(localnet.lines, join(dir, 'relayer.key'), evmUrl));
    started.push({ ...reference, localnetPid: localnet.process.child.pid ?? null });
    const urls = started.map((s) => s.url);
    const idle = await idleLoopP99s(urls);
    const times = await interleaved402s(urls);
    const embedded = figures(started[0]!, idle[0]!, times[0]!);
    const separate = figures(started[1]!, idle[1]!, times[1]!);
    const ratio = (key: (r: Record<string, any>) => number) => Math.round((key(embedded) / key(separate)) * 100) / 100;
    const ratios = { challenge402P999: ratio((r) => r.challenge402Ms.p999), idleLoopP99: ratio((r) => r.idleLoopP99Ms) };
    return {
      name: 'localnet-isolation',
      serviceRoot: root,
      calls: CALLS,
      loadAverage: { start: loadAtStart, end: loadavg()[0]! },
      embedded,
      separate,
      ratios,
      goal: { maxRatio: GOAL_RATIO, met: ratios.challenge402P999 <= GOAL_RATIO && ratios.idleLoopP99 <= GOAL_RATIO },
    };
  } finally {
    await Promise.all(started.map((s) => stop(s.child)));
    await localnet.process.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

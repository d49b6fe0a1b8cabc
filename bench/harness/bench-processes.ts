/**
 * The processes of the HTTP benchmarks, each in its own Node process so that no server shares an
 * event loop with another or with the load generator's bookkeeping: the localnet (the service's
 * upstreams in mainnet mode), the service from its sources as `npm run dev` starts it, and the bench's own
 * servers (hello-world, the reference middleware). Each is ready when it prints a line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { statUs } from './process-cpu.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Start-up on a loaded 2-core machine (localnet world, EVM, pool) can take tens of seconds. */
export const START_TIMEOUT_MS = 180_000;
/** How long a child gets to exit after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 30_000;

export interface BenchProcess {
  readonly child: ChildProcess;
  /** When it was spawned (`performance.now()` of this process): a profile's clock starts about then. */
  readonly spawnedAt: number;
  /** Everything it printed to stdout so far. */
  stdout(): string;
  /** SIGTERM, then SIGKILL after STOP_TIMEOUT_MS; resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Spawns `node [nodeArgs] --import tsx <script> [args]` from the repository root and resolves once
 * every pattern of `ready` matched its stdout, with each pattern's first group.
 */
export function spawnNode(
  script: string,
  args: readonly string[],
  ready: readonly RegExp[],
  nodeArgs: readonly string[] = [],
): Promise<{ process: BenchProcess; found: string[] }> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc: BenchProcess = {
    child,
    spawnedAt,
    stdout: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within ${START_TIMEOUT_MS} ms\nstdout:\n${out}\nstderr:\n${err}`));
    }, START_TIMEOUT_MS);
    const early = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code}) before it was ready\nstdout:\n${out}\nstderr:\n${err}`));
    };
    child.once('exit', early);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const found = ready.map((re) => re.exec(out)?.[1]);
      if (found.some((f) => f === undefined)) return;
      clearTimeout(timer);
      child.off('exit', early);
      resolve({ process: proc, found: found as string[] });
    });
  });
}

/** The localnet's URLs and token addresses, as `npm run localnet` prints them. */
export interface LocalnetLines {
  readonly rpc: string;
  readonly geyser: string;
  readonly market: string;
  readonly stablecoin: string;
  readonly usdc: string;
}

/** `npm run localnet` on free ports in its own process. */
export async function spawnLocalnet(): Promise<{ process: BenchProcess; lines: LocalnetLines }> {
  const ports = ['--rpc-port', '0', '--geyser-port', '0', '--market-port', '0', '--evm-port', '0'];
  const { process: proc, found } = await spawnNode('packages/localnet/src/cli.ts', ports, [
    /^localnet rpc (\S+)/m,
    /^localnet geyser (\S+)/m,
    /^localnet market (\S+)/m,
    /^localnet stablecoin (\S+)/m,
    /LocalUsdc (0x[0-9a-fA-F]{40})/,
  ]);
  const [rpc, geyser, market, stablecoin, usdc] = found as [string, string, string, string, string];
  return { process: proc, lines: { rpc, geyser, market, stablecoin, usdc } };
}

/** What the mainnet-mode service is started with. */
export interface MainnetServiceArgs {
  readonly dataDir: string;
  readonly localnet: LocalnetLines;
  readonly facilitatorUrl: string;
  readonly svmPayTo: string;
  readonly evmPayTo: string;
  /** Extra command-line options (e.g. the free limit). */
  readonly extra: readonly string[];
  /** Node options, e.g. `--cpu-prof`. */
  readonly nodeArgs?: readonly string[];
}

/** The service from its sources as `npm run dev` starts it (`node --import tsx src/main.ts`), in mainnet mode against `localnet`. */
export async function spawnMainnetService(args: MainnetServiceArgs): Promise<{ process: BenchProcess; url: string }> {
  const { rpc, geyser, market, stablecoin, usdc } = args.localnet;
  const argv = [
    ...['--port', '0', '--admin-port', '0', '--data-dir', args.dataDir],
    ...['--rpc-url', rpc, '--geyser-url', geyser, '--facilitator-url', args.facilitatorUrl, '--svm-asset', stablecoin, '--evm-asset', usdc],
    ...['--svm-pay-to', args.svmPayTo, '--evm-pay-to', args.evmPayTo],
    ...['--jupiter-url', market, '--geckoterminal-url', market, '--magiceden-url', market, '--lending-url', market],
    ...args.extra,
  ];
  const { process: proc, found } = await spawnNode('src/main.ts', argv, [/^listening (http:\/\/\S+)/m], args.nodeArgs ?? []);
  return { process: proc, url: found[0]! };
}

/**
 * Freezes a process (SIGSTOP) for the duration of `work` and thaws it after, so that an upstream's
 * own CPU use (the localnet producing slots) stays out of a measurement on a small machine.
 */
export async function whileFrozen<T>(proc: BenchProcess, work: () => Promise<T>): Promise<T> {
  proc.child.kill('SIGSTOP');
  try {
    return await work();
  } finally {
    proc.child.kill('SIGCONT');
  }
}

/**
 * CPU time the process has used so far (user + system, all threads), ms; null where /proc is
 * absent. Unlike throughput it does not depend on what else the machine runs at the time.
 */
export function cpuMs(proc: BenchProcess): number | null {
  try {
    return statUs(proc.child.pid!) / 1000;
  } catch {
    return null;
  }
}

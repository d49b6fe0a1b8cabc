/**
 * The real service as a child process, started exactly as a user does (the build as `npm start`
 * runs it, or `npm run dev`), for tests that must kill it (SIGKILL) and start it again on the same
 * data dir. In embedded mode the localnet lives in the same process, so it dies with it.
 *
 * The build by default: vitest's global setup (test/helpers/build-setup.ts) builds it from the
 * current sources at every run, and a start from it costs about two thirds of the CPU of a start
 * through the TypeScript loader. The start from the sources (`'source'`, as `npm run dev` runs it)
 * stays covered by test/integration/abort-and-shutdown.test.ts's mainnet-mode lifecycle test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Start-up on a loaded 2-core machine (localnet world, EVM, pool) can take tens of seconds. */
export const SERVICE_START_TIMEOUT_MS = 180_000;

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Public base URL (`listening ...`). */
  readonly url: string;
  /** The admin listener (kill switch), 127.0.0.1 only. */
  readonly adminUrl: string;
  /** The embedded localnet's RPC ('' in mainnet mode). */
  readonly rpcUrl: string;
  /** The localnet stablecoin mint on the Solana side ('' in mainnet mode). */
  readonly stablecoinMint: string;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited and everything it printed has been read. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function match(text: string, re: RegExp): string | null {
  return re.exec(text)?.[1] ?? null;
}

/**
 * Background traffic of a spawned service's embedded localnet unless its flags say: none (the
 * producer's traffic was most of an idle service's CPU); a file that reads what it produces passes
 * `--txs-per-slot`.
 */
const SPAWNED_TXS_PER_SLOT = '0';
/** A spawned service's pool threads at start (test-support.ts, TEST_POOL_ARGS). */
const SPAWNED_POOL_MIN_THREADS = '0';

/** package.json's `start` script after its `node`: what `npm start` runs (scripts/start.mjs). */
function npmStartArgs(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const [node, ...args] = pkg.scripts.start.split(' ');
  if (node !== 'node') throw new Error(`package.json's start script no longer starts with node: ${pkg.scripts.start}`);
  return args;
}

/**
 * How the service is started: from the TypeScript sources (`npm run dev`), from the build as the
 * service's own entry (`built`: what `npm start` ends in, source maps off as there), or through
 * `npm start`'s own command (`start`: its launcher checks the build is current, then runs it; a
 * test using it checks first, so that no launcher rebuilds dist/ under the others' feet).
 */
const ENTRY = {
  source: ['--import', 'tsx', 'src/main.ts'],
  built: ['dist/server/main.js'],
  start: npmStartArgs(),
} as const;

/**
 * The environment of a start `from`: a start from the sources loads its pool's worker from the
 * sources too, as `npm run dev` does, not from the test run's worker bundle (build-setup.ts).
 */
function envOf(from: keyof typeof ENTRY): NodeJS.ProcessEnv {
  const { POOL_WORKER_BUNDLE: _bundle, ...rest } = process.env;
  return from === 'source' ? rest : process.env;
}

/**
 * Spawns the service on port 0 with `dataDir`; resolves once it prints its `listening` line.
 * `nodeArgs` go to Node itself, before the entry (e.g. `--heapsnapshot-signal=SIGUSR2`); `root` is the
 * checkout it runs from (a temporary copy, say).
 */
export function spawnService(
  dataDir: string,
  extraArgs: readonly string[] = [],
  from: keyof typeof ENTRY = 'built',
  nodeArgs: readonly string[] = [],
  root: string = REPO_ROOT,
): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, ...ENTRY[from], '--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--free-rate-per-second', '0', ...extraArgs],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its embedded localnet has no background traffic unless the test passes --txs-per-slot (a flag
      // wins over the environment), as the localnets tests start in-process (localnet-traffic.ts);
      // its pool starts no thread before a task needs one unless it passes --pool-min-threads, as
      // the services tests start in-process (test-support.ts, TEST_POOL_ARGS).
      env: { ...envOf(from), LOCALNET_TXS_PER_SLOT: SPAWNED_TXS_PER_SLOT, POOL_MIN_THREADS: SPAWNED_POOL_MIN_THREADS },
    },
  );
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  // 'close', not 'exit': the process may be gone before its last lines are read from the pipes,
  // and a caller reads what it printed (why it failed, its last line) once it has exited.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start within ${SERVICE_START_TIMEOUT_MS} ms\nstdout:\n${out}\nstderr:\n${err}`));
    }, SERVICE_START_TIMEOUT_MS);
    const onData = (): void => {
      const url = match(out, /^listening (http:\/\/\S+)/m);
      if (!url) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      const rpcUrl = match(out, /^localnet rpc (\S+)/m);
      const stablecoinMint = match(out, /^localnet stablecoin (\S+) \(solana\)/m);
      const adminUrl = match(out, /^admin (http:\/\/\S+)/m);
      // Mainnet mode (upstreams given with --rpc-url) prints no localnet lines.
      const embedded = !extraArgs.includes('--rpc-url');
      if (!adminUrl || (embedded && (!rpcUrl || !stablecoinMint))) {
        reject(new Error(`service printed no localnet URLs (embedded mode expected)\nstdout:\n${out}`));
        return;
      }
      resolve({
        child,
        pid: child.pid!,
        url,
        adminUrl,
        rpcUrl: rpcUrl ?? '',
        stablecoinMint: stablecoinMint ?? '',
        stdout: () => out,
        stderr: () => err,
        exited,
      });
    };
    child.stdout!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`service exited before listening (code ${code}, signal ${signal})\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
}

/** SIGKILLs the process (if still running) and waits for it to be gone. */
export async function killService(p: ServiceProcess | null | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGKILL');
  await p.exited;
}

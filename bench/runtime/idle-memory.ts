/**
 * Idle memory of the service in both modes, started as a user starts it: resident memory
 * (`VmRSS`), its peak since start (`VmHWM`) and the thread count from /proc, and the main
 * thread's heap from /health, IDLE_SETTLE_MS after `listening` with no traffic. Embedded mode
 * runs the localnet in a process the service starts (its resident memory is reported beside the
 * service's, `localnetRssMiB`); mainnet mode points the service at a localnet started alone in
 * another process (`npm run localnet`), with a relayer of its own for Base.
 *
 *   npm run bench -- idle-memory
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOrCreateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { killService, spawnService } from '../../test/helpers/service-process.ts';

const IDLE_SETTLE_MS = 30_000;
const LOCALNET_START_TIMEOUT_MS = 120_000;
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KIB_PER_MIB = 1024;

interface IdleFigures {
  readonly rssMiB: number;
  readonly peakMiB: number;
  readonly threads: number;
  readonly heapUsedMiB: number;
  /** Embedded mode: the resident memory of the localnet's process the service started. */
  readonly localnetRssMiB?: number;
}

async function idleFigures(dataDir: string, args: readonly string[]): Promise<IdleFigures> {
  const service = await spawnService(dataDir, args);
  try {
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const status = readFileSync(`/proc/${service.pid}/status`, 'utf8');
    const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)![1]);
    const health = (await (await fetch(`${service.url}/health`)).json()) as { process: { heapUsedBytes: number } };
    const localnetPid = /^localnet ready in .*\(process (\d+)/m.exec(service.stdout())?.[1];
    const localnetStatus = localnetPid ? readFileSync(`/proc/${localnetPid}/status`, 'utf8') : null;
    return {
      ...(localnetStatus ? { localnetRssMiB: Math.round(Number(/^VmRSS:\s+(\d+)/m.exec(localnetStatus)![1]) / KIB_PER_MIB) } : {}),
      rssMiB: Math.round(field('VmRSS') / KIB_PER_MIB),
      peakMiB: Math.round(field('VmHWM') / KIB_PER_MIB),
      threads: field('Threads'),
      heapUsedMiB: Math.round(health.process.heapUsedBytes / (KIB_PER_MIB * KIB_PER_MIB)),
    };
  } finally {
    await killService(service);
  }
}

/** `npm run localnet` on free ports; resolves with what it printed once its URLs are out. */
function startLocalnetProcess(): Promise<{ child: ChildProcess; out: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'packages/localnet/src/cli.ts', '--rpc-port', '0', '--geyser-port', '0', '--market-port', '0', '--evm-port', '0'],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the localnet did not start within ${LOCALNET_START_TIMEOUT_MS} ms:\n${out}`)), LOCALNET_START_TIMEOUT_MS);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (!/^localnet stablecoin /m.test(out)) return;
      clearTimeout(timer);
      resolve({ child, out });
    });
    child.once('exit', (code) => reject(new Error(`the localnet exited (code ${code}) before it was ready:\n${out}`)));
  });
}

/** The mainnet-mode flags that point the service at the localnet printed in `out`. */
function mainnetArgs(out: string, relayerKeyPath: string): string[] {
  const url = (name: string) => new RegExp(`^localnet ${name} (\\S+)`, 'm').exec(out)![1]!;
  const mint = /^localnet stablecoin (\S+)/m.exec(out)![1]!;
  const usdc = /LocalUsdc (0x[0-9a-fA-F]{40})/.exec(out)![1]!;
  const market = url('market');
  loadOrCreateEvmKey(relayerKeyPath);
  // Any well-formed pay-to will do: nothing is paid while idle.
  return [
    ...['--rpc-url', url('rpc'), '--geyser-url', url('geyser'), '--evm-rpc-url', url('evm'), '--evm-relayer-key', relayerKeyPath],
    ...['--svm-pay-to', mint, '--svm-asset', mint, '--evm-pay-to', usdc, '--evm-asset', usdc],
    ...['--jupiter-url', market, '--geckoterminal-url', market, '--magiceden-url', market, '--lending-url', market],
  ];
}

/** Runs the benchmark and returns its report. */
export async function benchIdleMemory(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-idle-'));
  try {
    const embedded = await idleFigures(join(dir, 'embedded'), []);
    const localnet = await startLocalnetProcess();
    try {
      const mainnet = await idleFigures(join(dir, 'mainnet'), mainnetArgs(localnet.out, join(dir, 'relayer.key')));
      return { name: 'idle-memory', settleMs: IDLE_SETTLE_MS, node: process.version, embedded, mainnet };
    } finally {
      localnet.child.kill('SIGKILL');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Start-up time and settled memory of the service started from its TypeScript sources (`npm run
 * dev`: Node with the tsx loader) against the build (`npm start`: plain Node on dist/server/), in
 * both modes, as ratios in one run. Each start is a fresh process on a fresh data dir; time is
 * from spawn to the `listening` line, memory is VmRSS of /proc/<pid>/status SETTLE_MS after it.
 * Mainnet mode points at a localnet this benchmark runs in its own process.
 *
 *   npm run build && npm run bench -- startup
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalnet } from '@solana-x402-intel/localnet';
import { localnetMainnetArgs } from '../harness/mainnet-args.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Starts per variant; the median is reported. */
const STARTS = 3;
/** Memory is read this long after `listening`: the pool and caches have settled. */
const SETTLE_MS = 10_000;
const ENTRIES = {
  source: ['--import', 'tsx', 'src/main.ts'],
  // As `npm start` ends in: source maps off (docs/operations.md#stack-traces-and-source-maps).
  built: ['dist/server/main.js'],
} as const;

interface StartSample {
  readonly listeningMs: number;
  readonly rssMiB: number;
}

const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, digits = 0): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** One start: spawn, wait for `listening`, settle, read RSS, stop. */
async function startOnce(entry: readonly string[], modeArgs: readonly string[]): Promise<StartSample> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
  const started = performance.now();
  const child = spawn(process.execPath, [...entry, '--port', '0', '--admin-port', '0', '--data-dir', dataDir, ...modeArgs], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const listeningMs = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (/^listening /m.test(out)) resolve(performance.now() - started);
      });
      child.once('exit', (code) => reject(new Error(`service exited (${code}) before listening:\n${out}`)));
    });
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const sample = { listeningMs, rssMiB: rssMiB(child.pid!) };
    process.stderr.write(
      `startup: ${entry.at(-1)} ${modeArgs.length > 0 ? 'mainnet' : 'embedded'}: ${Math.round(listeningMs)} ms, ${Math.round(sample.rssMiB)} MiB\n`,
    );
    return sample;
  } finally {
    const exited = new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs the benchmark and returns its report. */
export async function benchStartup(): Promise<Record<string, unknown>> {
  if (!existsSync(join(ROOT, 'dist', 'server', 'main.js'))) throw new Error('dist/server/main.js is missing: run `npm run build` first');
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-startup' });
  const keyDir = mkdtempSync(join(tmpdir(), 'bench-startup-key-'));
  const modes = { embedded: [], mainnet: localnetMainnetArgs(net, join(keyDir, 'relayer.key')) } as const;
  const report: Record<string, unknown> = { name: 'startup', starts: STARTS, settleMs: SETTLE_MS };
  try {
    for (const [mode, args] of Object.entries(modes)) {
      const samples: Record<keyof typeof ENTRIES, StartSample[]> = { source: [], built: [] };
      // Interleaved, so a slow spell of the machine hits both variants alike.
      for (let i = 0; i < STARTS; i++) for (const variant of ['source', 'built'] as const) samples[variant].push(await startOnce(ENTRIES[variant], args));
      const summary = (variant: keyof typeof ENTRIES) => ({
        listeningMs: round(median(samples[variant].map((s) => s.listeningMs))),
        rssMiB: round(median(samples[variant].map((s) => s.rssMiB))),
      });
      const [source, built] = [summary('source'), summary('built')];
      report[mode] = {
        source,
        built,
        builtToSource: { listening: round(built.listeningMs / source.listeningMs, 3), rss: round(built.rssMiB / source.rssMiB, 3) },
      };
    }
    return report;
  } finally {
    await net.close();
    rmSync(keyDir, { recursive: true, force: true });
  }
}

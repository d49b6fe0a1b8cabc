/**
 * Loopback load benchmark of the 402 challenge path (validation + challenge build) against a
 * bare uWS hello-world started by this same benchmark, reported as a ratio. Uses wrk when it is
 * installed (Debian package `wrk`), else bench/load-generator.ts in a child process.
 *
 *   npm run bench -- http-challenge [--seconds 5] [--connections 32]
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startHelloWorld } from './hello-server.ts';
import { localnetUpstreams, startLocalnet } from '@solana-x402-intel/localnet';
import { startService } from '../src/service.ts';

export interface LoadResult {
  readonly tool: 'wrk' | 'node';
  readonly rps: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
}

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its version; only ENOENT means it is absent.
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

const wrkMs = (text: string, label: string): number | null => {
  const m = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(text);
  if (!m) return null;
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
};

const run = promisify(execFile);

/**
 * Drives `url` for `seconds` with `connections` keep-alive connections from another process.
 * Asynchronous on purpose: the servers under test share this process's event loop.
 */
export async function drive(url: string, seconds: number, connections: number): Promise<LoadResult> {
  if (hasWrk()) {
    const { stdout: out } = await run('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', url], { encoding: 'utf8' });
    return { tool: 'wrk', rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1])), p50Ms: wrkMs(out, '50%'), p99Ms: wrkMs(out, '99%') };
  }
  const { stdout: out } = await run(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'load-generator.ts'), url, String(connections), String(seconds)],
    { encoding: 'utf8' },
  );
  const r = JSON.parse(out.trim().split('\n').pop()!) as { rps: number; latencyMs: { p50: number; p99: number } };
  return { tool: 'node', rps: r.rps, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99 };
}

/** Runs the benchmark and returns its report. */
export async function benchHttpChallenge(seconds = 5, connections = 32): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-'));
  const hello = await startHelloWorld('127.0.0.1', 0);
  const config = loadConfig({}, ['--port', '0', '--admin-port', '0', '--data-dir', dataDir]);
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-1' });
  const service = await startService(config, { upstreams: localnetUpstreams(net) });
  try {
    const reference = await drive(`http://127.0.0.1:${hello.port}/`, seconds, connections);
    const challenge = await drive(`${service.url}/v1/smri?mint=DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263`, seconds, connections);
    const invalid = await drive(`${service.url}/v1/smri?mint=bad`, seconds, connections);
    const health = await drive(`${service.url}/health`, seconds, connections);
    const ratio = (r: LoadResult) => Math.round((r.rps / reference.rps) * 1000) / 1000;
    return {
      name: 'http-challenge',
      tool: reference.tool,
      seconds,
      connections,
      reference: { what: 'bare uWS hello-world', ...reference },
      challenge402: { ...challenge, ratioToReference: ratio(challenge) },
      invalid400: { ...invalid, ratioToReference: ratio(invalid) },
      health: { ...health, ratioToReference: ratio(health) },
    };
  } finally {
    hello.close();
    await service.close();
    await net.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

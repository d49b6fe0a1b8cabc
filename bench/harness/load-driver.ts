/**
 * Drives one URL with keep-alive connections from another process: wrk when it is installed
 * (Debian package `wrk`), else bench/harness/load-generator.ts in a child process. Asynchronous on purpose:
 * the caller keeps its event loop free while the load runs.
 */
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface LoadResult {
  readonly tool: 'wrk' | 'node';
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
}

/** True when wrk is on the PATH. */
export function hasWrk(): boolean {
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

/** Drives `url` for `seconds` with `connections` keep-alive connections (wrk uses one thread). */
export async function drive(url: string, seconds: number, connections: number): Promise<LoadResult> {
  if (hasWrk()) {
    const { stdout: out } = await run('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', url], { encoding: 'utf8' });
    return {
      tool: 'wrk',
      requests: Number(/(\d+) requests in/.exec(out)![1]),
      rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1])),
      p50Ms: wrkMs(out, '50%'),
      p99Ms: wrkMs(out, '99%'),
    };
  }
  const { stdout: out } = await run(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'load-generator.ts'), url, String(connections), String(seconds)],
    { encoding: 'utf8' },
  );
  const r = JSON.parse(out.trim().split('\n').pop()!) as { requests: number; rps: number; latencyMs: { p50: number; p99: number } };
  return { tool: 'node', requests: r.requests, rps: r.rps, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99 };
}

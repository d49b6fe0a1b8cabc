/**
 * Drives pre-signed paid calls from a client process of its own (bench/payments/presigned-client.ts), so
 * the bench's process (which also runs the localnet) takes no CPU per call and the client takes
 * little: what the run measures is the service.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PresignedJob, PresignedOutcome } from './presigned-client.ts';
import { round, type Run, runOf } from './paid-calls.ts';

const CLIENT = fileURLToPath(new URL('./presigned-client.ts', import.meta.url));

/** A run of pre-signed calls: the usual figures, each answer's Server-Timing, the client's CPU per call. */
export interface PresignedRun extends Run {
  readonly statuses: Record<string, number>;
  readonly serverTimings: readonly string[];
  readonly clientCpuUsPerCall: number;
}

/** Sends each list over one connection, in order, all lists at once; resolves with the figures. */
export function drivePresigned(job: PresignedJob): Promise<PresignedRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLIENT], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.end(JSON.stringify(job));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`presigned client exited ${code}: ${err}`));
      const o = JSON.parse(out.trim()) as PresignedOutcome;
      const run = runOf(o.latenciesMs, o.statuses['200'] ?? 0, o.seconds);
      resolve({
        ...run,
        statuses: o.statuses,
        serverTimings: o.serverTimings,
        clientCpuUsPerCall: round(o.clientCpuUs / Math.max(1, run.requests)),
      });
    });
  });
}

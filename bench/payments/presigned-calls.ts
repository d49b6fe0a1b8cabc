/**
 * Drives pre-signed paid calls from a client process of its own (bench/payments/presigned-client.ts), so
 * the bench's process (which also runs the localnet) takes no CPU per call and the client takes
 * little: what the run measures is the service.
 */
import { fileURLToPath } from 'node:url';
import type { PresignedJob, PresignedOutcome } from './presigned-client.ts';
import { round, type Run, runOf } from './paid-calls.ts';
import { runJsonChild } from '../harness/json-child.ts';

const CLIENT = fileURLToPath(new URL('./presigned-client.ts', import.meta.url));

/** A run of pre-signed calls: the usual figures, each answer's Server-Timing, the client's CPU per call. */
export interface PresignedRun extends Run {
  readonly statuses: Record<string, number>;
  readonly serverTimings: readonly string[];
  readonly clientCpuUsPerCall: number;
}

/** Sends each list over one connection, in order, all lists at once; resolves with the figures. */
export async function drivePresigned(job: PresignedJob): Promise<PresignedRun> {
  const o = await runJsonChild<PresignedJob, PresignedOutcome>(CLIENT, job, 'presigned client');
  const run = runOf(o.latenciesMs, o.statuses['200'] ?? 0, o.seconds);
  return {
    ...run,
    statuses: o.statuses,
    serverTimings: o.serverTimings,
    clientCpuUsPerCall: round(o.clientCpuUs / Math.max(1, run.requests)),
  };
}

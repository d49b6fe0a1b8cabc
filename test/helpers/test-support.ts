/**
 * Steps many test files take the same way: the configuration of a service a test starts itself
 * (port 0, admin port 0, its own data dir, no per-client limit), the ServiceError a promise
 * rejects with, and the acknowledgements a writing child printed until it was killed with SIGKILL.
 */
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { expect } from 'vitest';
import { type Config, loadConfig } from '../../src/config.ts';
import { ServiceError } from '../../src/errors.ts';

/**
 * The configuration of a service on ephemeral ports with `dataDir`, the per-client limit off (a
 * test talks far faster than a client may without paying; `argv` may set it), no pool thread
 * started before a task needs one (TEST_POOL_ARGS), then `argv`.
 */
export function testServiceConfig(dataDir: string, argv: readonly string[] = []): Config {
  const limit = argv.includes('--free-rate-per-second') ? [] : ['--free-rate-per-second', '0'];
  return loadConfig({}, ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, ...limit, ...TEST_POOL_ARGS, ...argv]);
}

/**
 * A test service's pool starts no worker thread until a task leaves the event loop: most test
 * services never send one (their signatures run inline while the loop is idle), and an idle
 * thread's start-up was about 70 ms of CPU per service start (docs/development.md, "What a run
 * costs"). The product's default (one thread at start) is unchanged; a later flag wins.
 */
export const TEST_POOL_ARGS: readonly string[] = ['--pool-min-threads', '0'];

/** The ServiceError `p` rejects with (the test fails when it resolves or rejects with anything else). */
export async function serviceFault(p: Promise<unknown>): Promise<ServiceError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  return err as ServiceError;
}

/**
 * Reads the numbers `child` prints one a line (each a write it acknowledged as durable) until it
 * printed `target` of them, kills it with SIGKILL there, and resolves with every number read once it
 * has exited (it must have died of the kill).
 */
export async function acksUntilKilled(child: ChildProcessByStdio<null, Readable, null>, target: number): Promise<number[]> {
  const acked: number[] = [];
  let buffered = '';
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve());
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const p of parts) if (/^\d+$/.test(p)) acked.push(Number(p));
      if (acked.length >= target && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
  });
  expect(child.signalCode).toBe('SIGKILL');
  return acked;
}

/**
 * How many fsync and fdatasync calls the service makes while some work runs: each is one durable
 * write waited for, the cost issue 40 counts per paid call. No /proc file counts them and /health
 * has no commit counters, so strace counts them (`-c`, every thread), in a batch of its own: a
 * traced process stops at every system call, so the batch is never one whose CPU or time is read.
 * Without strace (or without the right to trace) the count is null.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SYNC_CALLS = new Set(['fsync', 'fdatasync']);
/** How long to wait for strace to attach to every thread before giving up on the count. */
const ATTACH_TIMEOUT_MS = 5_000;

/** The fsync and fdatasync calls in strace's `-c` summary table. */
export function syncsInSummary(summary: string): number {
  let syncs = 0;
  for (const line of summary.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // `% time  seconds  usecs/call  calls  [errors]  syscall`: the call count is the fourth field.
    if (fields.length >= 5 && SYNC_CALLS.has(fields.at(-1)!)) syncs += Number(fields[3]);
  }
  return syncs;
}

/** Starts strace on every thread of `pid`; resolves once it is attached, or null. */
async function attach(pid: number, out: string) {
  const strace = spawn('strace', ['-f', '-c', '-e', 'trace=fsync,fdatasync', '-o', out, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  const ready = new Promise<boolean>((resolve) => {
    strace.once('error', () => resolve(false));
    strace.once('exit', () => resolve(false));
    // One line for the process (`Process N attached`, `... with M threads` in some versions): -f
    // has taken its threads by the time it prints it.
    strace.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (d.includes('attached')) resolve(true);
    });
    setTimeout(() => resolve(false), ATTACH_TIMEOUT_MS);
  });
  if (await ready) return strace;
  strace.kill('SIGKILL');
  return null;
}

/** Runs `work` with `pid` traced; the fsync and fdatasync calls it made meanwhile (null when it could not be traced). */
export async function countSyncs<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; syncs: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-syncs-'));
  try {
    const strace = await attach(pid, join(dir, 'summary'));
    const result = await work();
    if (!strace) return { result, syncs: null };
    const exited = new Promise((resolve) => strace.once('exit', resolve));
    strace.kill('SIGINT');
    await exited;
    return { result, syncs: syncsInSummary(readFileSync(join(dir, 'summary'), 'utf8')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

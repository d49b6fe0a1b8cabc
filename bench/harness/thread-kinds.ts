/**
 * Which thread of a Node 20 process is which, from /proc alone (the service is a child process;
 * nothing in it reports its own thread ids). Node 20 names none of its threads: every thread it
 * starts keeps the executable's name (`node`), so the name alone separates only the threads of
 * native libraries that name theirs (`tokio-rt-worker`). The rule, in order:
 *
 * 1. tid == pid: the main thread (the event loop: HTTP, routing, handlers, JavaScript crypto).
 * 2. A name other than the main thread's: a native library's own thread (`native`).
 * 3. SIGUSR1 blocked (`SigBlk` of /proc/<pid>/task/<tid>/status): Node's platform threads
 *    (`platform`: V8's background GC and compiler workers, the delayed-task scheduler, the
 *    inspector's signal watchdog). Node starts them while SIGUSR1 is still blocked on the main
 *    thread, before it installs the inspector's SIGUSR1 handler, and a new thread inherits its
 *    creator's mask; every thread started later (libuv's pool, Workers) has it unblocked.
 * 4. A stack of exactly 4 MiB: a Worker thread (`pool`: the service's only Workers are Piscina's).
 *    Node gives each Worker a 4 MiB stack (`resourceLimits.stackSizeMb`, left at its default by
 *    the pool), while libuv starts its threadpool with 8 MiB ones. The stack is the mapping of
 *    /proc/<pid>/maps holding the thread's stack pointer, read from /proc/<pid>/task/<tid>/syscall
 *    while the thread sleeps in a system call (an idle Piscina worker sleeps in Atomics.wait, a
 *    futex, as libuv's idle threads do: the wait alone does not tell them apart).
 * 5. A stack of exactly 8 MiB: libuv's threadpool (`libuv`: file writes and their fsyncs, async
 *    crypto, DNS).
 * Anything else, or a thread running at the reading (no stack pointer to read), is `unclassified`;
 * the readers classify again while the service idles, so a thread is named once it has slept.
 */
import { readdirSync, readFileSync } from 'node:fs';

export type ThreadKind = 'main' | 'pool' | 'libuv' | 'platform' | 'native' | 'unclassified';

/** What /proc says of one thread, as text. */
export interface ThreadSample {
  readonly tid: number;
  readonly comm: string;
  /** /proc/<pid>/task/<tid>/status */
  readonly status: string;
  /** /proc/<pid>/task/<tid>/syscall: `running`, or the call's number, arguments, stack and program pointers. */
  readonly syscall: string;
}

const MIB = 1024 * 1024;
/** The stack Node gives a Worker thread by default. */
export const WORKER_STACK_BYTES = 4 * MIB;
/** The stack libuv gives each thread of its threadpool. */
export const LIBUV_POOL_STACK_BYTES = 8 * MIB;
const SIGUSR1 = 10;

/** Whether signal `signal` is set in a `SigBlk:` style hexadecimal mask. */
export function maskHas(hexMask: string, signal: number): boolean {
  return ((BigInt(`0x${hexMask}`) >> BigInt(signal - 1)) & 1n) === 1n;
}

/** The value of `field` in /proc status text, or null. */
export function statusField(status: string, field: string): string | null {
  const line = status.split('\n').find((l) => l.startsWith(`${field}:`));
  return line ? line.slice(field.length + 1).trim() : null;
}

/** The stack pointer of a thread asleep in a system call (second to last field), or null while it runs. */
export function stackPointer(syscall: string): bigint | null {
  const fields = syscall.trim().split(/\s+/);
  if (fields[0] === 'running' || fields.length < 3) return null;
  return BigInt(fields[fields.length - 2]!);
}

/** The size in bytes of the mapping of /proc/<pid>/maps text that holds `address`, or null. */
export function mappingSize(maps: string, address: bigint): number | null {
  for (const line of maps.split('\n')) {
    const range = line.split(' ', 1)[0];
    if (!range?.includes('-')) continue;
    const [from, to] = range.split('-').map((x) => BigInt(`0x${x}`)) as [bigint, bigint];
    if (from <= address && address < to) return Number(to - from);
  }
  return null;
}

/** The kind of one thread by the rule above; `mainComm` is the main thread's name. */
export function classifyThread(pid: number, sample: ThreadSample, mainComm: string, maps: string): ThreadKind {
  if (sample.tid === pid) return 'main';
  if (sample.comm !== mainComm) return 'native';
  const blocked = statusField(sample.status, 'SigBlk');
  if (blocked !== null && maskHas(blocked, SIGUSR1)) return 'platform';
  const sp = stackPointer(sample.syscall);
  const stack = sp === null ? null : mappingSize(maps, sp);
  if (stack === WORKER_STACK_BYTES) return 'pool';
  if (stack === LIBUV_POOL_STACK_BYTES) return 'libuv';
  return 'unclassified';
}

const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // The thread exited between the listing and the read, or /proc denies it: nothing to classify.
    return null;
  }
};

/** Every live thread of `pid` with its kind now. */
export function classifyThreads(pid: number): Map<number, ThreadKind> {
  const maps = read(`/proc/${pid}/maps`) ?? '';
  const mainComm = (read(`/proc/${pid}/comm`) ?? '').trim();
  const kinds = new Map<number, ThreadKind>();
  for (const entry of readdirSync(`/proc/${pid}/task`)) {
    const dir = `/proc/${pid}/task/${entry}`;
    const [comm, status, syscall] = [read(`${dir}/comm`), read(`${dir}/status`), read(`${dir}/syscall`)];
    if (comm === null || status === null) continue;
    kinds.set(Number(entry), classifyThread(pid, { tid: Number(entry), comm: comm.trim(), status, syscall: syscall ?? 'running' }, mainComm, maps));
  }
  return kinds;
}

/** `next` merged into `known`: a thread keeps the kind it was given while asleep, a new one takes its own. */
export function mergeKinds(known: ReadonlyMap<number, ThreadKind>, next: ReadonlyMap<number, ThreadKind>): Map<number, ThreadKind> {
  const merged = new Map(known);
  for (const [tid, kind] of next) if (kind !== 'unclassified' || !merged.has(tid)) merged.set(tid, kind);
  return merged;
}

/**
 * The CPU budget of a paid call: the service child's CPU over a timed run of calls, per call, split
 * by the kind of thread that spent it (thread-kinds.ts): the main thread, the Piscina pool, and
 * the rest (libuv's threadpool, Node's platform threads, native libraries' threads), with the
 * service's write system calls per call beside it.
 *
 * The write system calls (`syscw` of /proc/<pid>/io) are every write(2) of every thread: the
 * durable stores' appends, and libuv's eventfd writes that wake the event loop after each file
 * operation; the HTTP answers leave by send(), which `syscw` does not count. So it moves with the
 * file work without being the durable writes: those, the fsyncs, are counted apart under strace
 * (sync-count.ts), since /proc counts no fsyncs and /health has no commit counters.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { classifyThreads, mergeKinds, type ThreadKind } from './thread-kinds.ts';

/** Scheduler run time (µs) of each live thread by tid, and the process's write system calls. */
export interface TaskReading {
  readonly us: ReadonlyMap<number, number>;
  readonly writes: number;
}

/** The service's CPU per paid call in µs, split main / pool / other, and what "other" is made of. */
export interface CpuBudget {
  readonly calls: number;
  readonly usPerCall: { readonly total: number; readonly main: number; readonly pool: number; readonly other: number };
  readonly otherUsPerCall: { readonly libuv: number; readonly platform: number; readonly native: number; readonly unclassified: number };
  /** Write system calls per call (/proc/<pid>/io syscw): file writes and libuv wake-ups, not fsyncs. */
  readonly writeSyscallsPerCall: number | null;
  /** fsync and fdatasync calls per call, counted under strace in a batch of its own (sync-count.ts), where measured. */
  readonly durableSyncsPerCall?: number | null;
  /** Live threads of each kind at the end of the run. */
  readonly threads: Readonly<Record<ThreadKind, number>>;
  /**
   * What the service spends idle (Geyser stream, timers) over as long as the run took, per call:
   * read over an idle span right after it. Included in `usPerCall`, which is all the service spent.
   */
  readonly backgroundUsPerCall?: CpuBudget['usPerCall'];
}

export interface BudgetOptions {
  /** How long to read the idle service after the run, for `backgroundUsPerCall` (none without). */
  readonly idleMs?: number;
}

const KINDS: readonly ThreadKind[] = ['main', 'pool', 'libuv', 'platform', 'native', 'unclassified'];
const round = (x: number, digits = 1): number => Number(x.toFixed(digits));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readTasks(pid: number): TaskReading {
  const us = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      us.set(Number(tid), Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000);
    } catch {
      // Exited between the listing and the read: its time is lost from both readings alike.
    }
  }
  const syscw = /^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1];
  return { us, writes: syscw === undefined ? Number.NaN : Number(syscw) };
}

/** Classifies `pid`'s threads, again a few times (10 ms apart) while any was running at the reading. */
async function settledKinds(pid: number, known: ReadonlyMap<number, ThreadKind>): Promise<Map<number, ThreadKind>> {
  let kinds = mergeKinds(known, classifyThreads(pid));
  for (let i = 0; i < 5 && [...kinds.values()].includes('unclassified'); i++) {
    await sleep(10);
    kinds = mergeKinds(kinds, classifyThreads(pid));
  }
  return kinds;
}

/** The budget of the CPU between two readings, over `calls` calls, with each thread's kind. */
export function budgetOf(before: TaskReading, after: TaskReading, kinds: ReadonlyMap<number, ThreadKind>, calls: number): CpuBudget {
  const byKind = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<ThreadKind, number>;
  const threads = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<ThreadKind, number>;
  for (const [tid, us] of after.us) {
    const kind = kinds.get(tid) ?? 'unclassified';
    byKind[kind] += us - (before.us.get(tid) ?? 0);
    threads[kind] += 1;
  }
  const per = (us: number) => (calls > 0 ? round(us / calls) : Number.NaN);
  const other = byKind.libuv + byKind.platform + byKind.native + byKind.unclassified;
  const writes = after.writes - before.writes;
  return {
    calls,
    usPerCall: { total: per(byKind.main + byKind.pool + other), main: per(byKind.main), pool: per(byKind.pool), other: per(other) },
    otherUsPerCall: { libuv: per(byKind.libuv), platform: per(byKind.platform), native: per(byKind.native), unclassified: per(byKind.unclassified) },
    writeSyscallsPerCall: Number.isFinite(writes) ? round(writes / Math.max(1, calls), 2) : null,
    threads,
  };
}

/**
 * Runs `work` (which makes paid calls to the service `pid`) and returns its result with the
 * budget: threads classified while the service idles before and after (a pool worker started
 * during the run is named after it), CPU read around `work` alone, then (with `idleMs`) the idle
 * service's CPU over that span scaled to the run's length.
 */
export async function withCpuBudget<T>(
  pid: number,
  work: () => Promise<T>,
  callsOf: (result: T) => number,
  options: BudgetOptions = {},
): Promise<{ result: T; cpuBudget: CpuBudget }> {
  const first = await settledKinds(pid, new Map());
  const before = readTasks(pid);
  const started = performance.now();
  const result = await work();
  const wallMs = performance.now() - started;
  const after = readTasks(pid);
  const kinds = await settledKinds(pid, first);
  const calls = callsOf(result);
  const cpuBudget = budgetOf(before, after, kinds, calls);
  if (!options.idleMs) return { result, cpuBudget };
  const idleFrom = readTasks(pid);
  await sleep(options.idleMs);
  // The idle span's CPU over the calls it would have lasted: idle µs x (run ms / idle ms) / calls.
  const idle = budgetOf(idleFrom, readTasks(pid), kinds, (calls * options.idleMs) / wallMs);
  return { result, cpuBudget: { ...cpuBudget, backgroundUsPerCall: idle.usPerCall } };
}

type Figures = Pick<CpuBudget, 'usPerCall' | 'otherUsPerCall'>;
/** Applies `f` to each pair of per-call figures of `a` and `b`. */
function zipFigures(a: Figures, b: Figures, f: (x: number, y: number) => number): Figures {
  const zip = <K extends string>(x: Record<K, number>, y: Record<K, number>) =>
    Object.fromEntries(Object.keys(x).map((k) => [k, round(f(x[k as K], y[k as K]))])) as Record<K, number>;
  return { usPerCall: zip(a.usPerCall, b.usPerCall), otherUsPerCall: zip(a.otherUsPerCall, b.otherUsPerCall) };
}

/** Two runs' budgets as one, each figure weighted by its run's calls. */
export function combineBudgets(a: CpuBudget, b: CpuBudget): CpuBudget {
  const calls = a.calls + b.calls;
  const weighted = zipFigures(a, b, (x, y) => (x * a.calls + y * b.calls) / Math.max(1, calls));
  const writes =
    a.writeSyscallsPerCall === null || b.writeSyscallsPerCall === null ? null : (a.writeSyscallsPerCall * a.calls + b.writeSyscallsPerCall * b.calls) / calls;
  return { ...b, ...weighted, calls, writeSyscallsPerCall: writes === null ? null : round(writes, 2) };
}

/** `a` less `background` (a budget over an idle span, divided by the same number of calls). */
export function budgetMinus(a: CpuBudget, background: CpuBudget): CpuBudget {
  const writes = a.writeSyscallsPerCall === null || background.writeSyscallsPerCall === null ? null : a.writeSyscallsPerCall - background.writeSyscallsPerCall;
  return { ...a, ...zipFigures(a, background, (x, y) => x - y), writeSyscallsPerCall: writes === null ? null : round(writes, 2) };
}

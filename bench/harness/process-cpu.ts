/**
 * CPU time of another process, read from /proc: every thread counts (the event loop, the worker
 * pool, libuv's threads, V8's compiler and GC threads). Two readings: the per-thread scheduler
 * totals in nanoseconds (/proc/<pid>/task/<tid>/schedstat, of threads alive at the reading) and
 * utime+stime of /proc/<pid>/stat, which includes exited threads but counts 10 ms clock ticks.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat on Linux (USER_HZ). */
const USER_HZ = 100;

/** One reading of a process's CPU time, in microseconds. */
export interface CpuReading {
  /** Sum of the live threads' scheduler run time (ns resolution). */
  readonly schedUs: number;
  /** utime + stime of the whole process (10 ms resolution). */
  readonly statUs: number;
  /** schedUs by thread name. */
  readonly threadsUs: Readonly<Record<string, number>>;
}

/** Run time (µs) of each live thread, summed by thread name (`node`, `libuv-worker`, ...). */
function threadsUs(pid: number): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      // The main thread is named after the executable; say so, since worker threads may be too.
      const name = tid === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      byName[name] = (byName[name] ?? 0) + ns / 1000;
    } catch {
      // A thread that exited between the listing and the read: its time is in the stat reading.
    }
  }
  return byName;
}

/** utime + stime of the whole process so far, µs (10 ms resolution); throws where /proc is absent. */
export function statUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / USER_HZ) * 1e6;
}

/** Reads the CPU time `pid` has used so far. */
export function readProcessCpu(pid: number): CpuReading {
  const threads = threadsUs(pid);
  return { schedUs: Object.values(threads).reduce((a, b) => a + b, 0), statUs: statUs(pid), threadsUs: threads };
}

/** CPU used between two readings, µs. */
export function cpuBetween(before: CpuReading, after: CpuReading): CpuReading {
  const threadsUs: Record<string, number> = {};
  for (const [name, us] of Object.entries(after.threadsUs)) threadsUs[name] = us - (before.threadsUs[name] ?? 0);
  return { schedUs: after.schedUs - before.schedUs, statUs: after.statUs - before.statUs, threadsUs };
}

/** The sum of two spans of CPU use. */
export function cpuPlus(a: CpuReading, b: CpuReading): CpuReading {
  const threadsUs: Record<string, number> = { ...a.threadsUs };
  for (const [name, us] of Object.entries(b.threadsUs)) threadsUs[name] = (threadsUs[name] ?? 0) + us;
  return { schedUs: a.schedUs + b.schedUs, statUs: a.statUs + b.statUs, threadsUs };
}

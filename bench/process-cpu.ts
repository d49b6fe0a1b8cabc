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
}

function schedstatUs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that exited between the listing and the read: its time is in the stat reading.
    }
  }
  return ns / 1000;
}

function statUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / USER_HZ) * 1e6;
}

/** Reads the CPU time `pid` has used so far. */
export function readProcessCpu(pid: number): CpuReading {
  return { schedUs: schedstatUs(pid), statUs: statUs(pid) };
}

/** CPU used between two readings, µs. */
export function cpuBetween(before: CpuReading, after: CpuReading): CpuReading {
  return { schedUs: after.schedUs - before.schedUs, statUs: after.statUs - before.statUs };
}

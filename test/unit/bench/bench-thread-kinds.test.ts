/**
 * The bench's rule for which thread of the service is which (bench/harness/thread-kinds.ts), on
 * /proc text as a Node 20 service with a Piscina pool shows it (taken from one, trimmed), and the
 * CPU budget built from per-thread readings (bench/harness/service-cpu.ts).
 */
import { describe, expect, it } from 'vitest';
import { budgetMinus, budgetOf, combineBudgets, type TaskReading } from '../../../bench/harness/service-cpu.ts';
import { syncsInSummary } from '../../../bench/harness/sync-count.ts';
import { classifyThread, mappingSize, maskHas, mergeKinds, stackPointer, type ThreadKind } from '../../../bench/harness/thread-kinds.ts';

const PID = 7079;
/** Three thread stacks and the main one: 8 MiB (libuv's pool), 4 MiB (a Worker), 132 KiB ([stack]). */
const MAPS = [
  '5660000-5680000 rw-p 00000000 00:00 0 ',
  '7f7040000000-7f7040001000 ---p 00000000 00:00 0 ',
  '7f7040001000-7f7040801000 rw-p 00000000 00:00 0 ',
  '7f7048000000-7f7048001000 ---p 00000000 00:00 0 ',
  '7f7048001000-7f7048401000 rw-p 00000000 00:00 0 ',
  '7ffc12300000-7ffc12321000 rw-p 00000000 00:00 0                          [stack]',
].join('\n');
/** A futex wait (202) with its stack pointer in the given mapping; `running` has none. */
const futexIn = (sp: string) => `202 0x7f7048010610 0x80 0x0 0x0 0x0 0x0 ${sp} 0x7f70581f2e96`;
const status = (sigBlk: string) =>
  `Name:\tnode\nState:\tS (sleeping)\nTgid:\t${PID}\nSigQ:\t0/31\nSigPnd:\t0000000000000000\nSigBlk:\t${sigBlk}\nSigIgn:\t0000000001001000\n`;
const thread = (tid: number, sigBlk: string, syscall: string, comm = 'node') => ({ tid, comm, status: status(sigBlk), syscall });
const kind = (t: ReturnType<typeof thread>): ThreadKind => classifyThread(PID, t, 'node', MAPS);

describe('thread kinds from /proc', () => {
  it('reads a signal mask bit by signal number, the stack pointer of a sleeping thread and the mapping that holds it', () => {
    expect(maskHas('0000000000000200', 10)).toBe(true);
    expect(maskHas('0000000000000200', 9)).toBe(false);
    expect(maskHas('0000000000000200', 11)).toBe(false);
    expect(stackPointer(futexIn('0x7f70483ffd40'))).toBe(0x7f70483ffd40n);
    expect(stackPointer('running')).toBeNull();
    expect(stackPointer('-1 0x7f70483ffd40 0x7f70581f2e96')).toBe(0x7f70483ffd40n);
    expect(mappingSize(MAPS, 0x7f70483ffd40n)).toBe(4 * 1024 * 1024);
    expect(mappingSize(MAPS, 0x7f7040800000n)).toBe(8 * 1024 * 1024);
    expect(mappingSize(MAPS, 0x1000n)).toBeNull();
  });

  it('names the main thread by its id, a named thread native, and SIGUSR1 blocked the platform whatever its stack', () => {
    expect(kind(thread(PID, '0000000000000000', 'running'))).toBe('main');
    expect(kind(thread(7114, '0000000000000000', futexIn('0x7f70483ffd40'), 'tokio-rt-worker'))).toBe('native');
    // V8's workers and the delayed-task scheduler: SIGUSR1 alone blocked, even on a 4 MiB stack.
    expect(kind(thread(7087, '0000000000000200', futexIn('0x7f70483ffd40')))).toBe('platform');
    // The inspector's watchdog blocks every signal.
    expect(kind(thread(7091, 'fffffffe7ffbfeff', futexIn('0x7f7040800000')))).toBe('platform');
  });

  it('tells a Piscina worker from a libuv thread by its stack, though both sleep in the same futex wait', () => {
    expect(kind(thread(7116, '0000000000000000', futexIn('0x7f70483ffd40')))).toBe('pool');
    expect(kind(thread(7092, '0000000000000000', futexIn('0x7f7040800000')))).toBe('libuv');
    // An epoll wait does not make a Worker: the stack does.
    expect(kind(thread(7093, '0000000000000000', `281 0x9 0x0 0x400 0xffffffff 0x0 0x8 0x7f7040800000 0x0`))).toBe('libuv');
  });

  it('leaves a running thread, or one on a stack of another size, unclassified; a later sleeping reading names it', () => {
    expect(kind(thread(7116, '0000000000000000', 'running'))).toBe('unclassified');
    expect(kind(thread(7120, '0000000000000000', futexIn('0x7ffc12310000')))).toBe('unclassified');
    const first = new Map<number, ThreadKind>([
      [7116, 'unclassified'],
      [7092, 'libuv'],
    ]);
    const later = new Map<number, ThreadKind>([
      [7116, 'pool'],
      [7092, 'unclassified'],
      [7130, 'unclassified'],
    ]);
    expect(Object.fromEntries(mergeKinds(first, later))).toEqual({ 7116: 'pool', 7092: 'libuv', 7130: 'unclassified' });
  });
});

const reading = (us: Record<number, number>, writes: number): TaskReading => ({ us: new Map(Object.entries(us).map(([t, u]) => [Number(t), u])), writes });

describe('the CPU budget of a paid call', () => {
  const kinds = new Map<number, ThreadKind>([
    [1, 'main'],
    [2, 'pool'],
    [3, 'libuv'],
    [4, 'platform'],
    [5, 'native'],
  ]);

  it('splits the CPU between two readings per call by kind; a thread born in between counts from zero, an unknown one as other', () => {
    const before = reading({ 1: 1_000, 2: 500, 3: 100, 4: 100, 5: 0 }, 10);
    const after = reading({ 1: 5_000, 2: 2_500, 3: 300, 4: 500, 5: 200, 6: 400, 7: 1_000 }, 50);
    const withNew = new Map([...kinds, [6, 'pool' as const]]);
    const budget = budgetOf(before, after, withNew, 10);
    expect(budget.usPerCall).toEqual({ total: 820, main: 400, pool: 240, other: 180 });
    expect(budget.otherUsPerCall).toEqual({ libuv: 20, platform: 40, native: 20, unclassified: 100 });
    expect(budget.writeSyscallsPerCall).toBe(4);
    expect(budget.threads).toMatchObject({ main: 1, pool: 2, unclassified: 1 });
  });

  it('combines runs weighted by their calls, and takes an idle span off', () => {
    const a = budgetOf(reading({ 1: 0 }, 0), reading({ 1: 1_000 }, 10), kinds, 10);
    const b = budgetOf(reading({ 1: 0 }, 0), reading({ 1: 3_000 }, 10), kinds, 10);
    expect(combineBudgets(a, b)).toMatchObject({ calls: 20, usPerCall: { main: 200, total: 200 }, writeSyscallsPerCall: 1 });
    const idle = budgetOf(reading({ 1: 0 }, 0), reading({ 1: 300 }, 2), kinds, 10);
    expect(budgetMinus(b, idle)).toMatchObject({ calls: 10, usPerCall: { main: 270, total: 270 }, writeSyscallsPerCall: 0.8 });
  });
});

describe('fsyncs counted by strace', () => {
  it("adds the fsync and fdatasync calls of strace's -c summary, with or without an errors column, and nothing else", () => {
    const summary = [
      '% time     seconds  usecs/call     calls    errors syscall',
      '------ ----------- ----------- --------- --------- ----------------',
      ' 84.07    1.311476         784      1672        96 futex',
      '  1.19    0.018597         123       150           fdatasync',
      '  0.40    0.006000         300        20         1 fsync',
      '  0.65    0.010131          14       704           write',
      '------ ----------- ----------- --------- --------- ----------------',
      '100.00    1.559937         310      2546       97 total',
    ].join('\n');
    expect(syncsInSummary(summary)).toBe(170);
    expect(syncsInSummary('')).toBe(0);
  });
});

/**
 * The single Piscina pool of the service (docs/contract.md#engineering-decisions): CPU work such as ed25519 signing and
 * verification runs here, not on the event loop, except the shortest tasks while nothing else is
 * pending (`inlineWhenIdle`); the identity seed is handed to every worker once through workerData.
 *
 * The pool knows no task: it is typed by a task table, an object type whose methods are the
 * tasks (plain data in, plain data or a promise of it out). The composition root passes the
 * worker entry's own table (`typeof import('workers/pool-worker.ts')`), and each module that runs
 * tasks names the few it needs in a table of its own, so no domain's types gather here.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { errorReply, type HttpReply, ServiceError } from '../errors.ts';
import { createLoopLoad } from './loop-load.ts';
import { abortError, dispatch, type RunOnPool, type Waiting } from './task-dispatch.ts';

/** The names of the tasks of table `T`. */
export type TaskName<T> = { [K in keyof T]: T[K] extends (input: never) => unknown ? K : never }[keyof T] & string;
/** The input of task function `F`. */
export type TaskInput<F> = F extends (input: infer I) => unknown ? I : never;
/** What task function `F` resolves to. */
export type TaskOutput<F> = F extends (input: never) => infer O ? Awaited<O> : never;

/** Task functions of table `Tasks` that may run on the calling thread (see `inlineWhenIdle`). */
export type InlineTasks<Tasks> = { readonly [K in TaskName<Tasks>]?: (input: TaskInput<Tasks[K]>) => TaskOutput<Tasks[K]> | Promise<TaskOutput<Tasks[K]>> };

export interface WorkerPoolConfig<Tasks = unknown> {
  /** Worker threads; default the available cores. */
  readonly size?: number | null;
  /**
   * Threads started with the pool and kept while idle (default 1, at most `size`). 0 starts none until
   * the first task that leaves the calling thread: a pool whose short tasks all run inline (a service
   * that only starts and closes, as most test services do) then never pays a thread's start-up.
   */
  readonly minThreads?: number;
  /** 32-byte ed25519 seed of the service identity, for `signEd25519`. Never logged. */
  readonly identitySeed?: Uint8Array;
  /**
   * Tasks that always travel alone: long CPU work (a large sort, a curve) that would hold up the
   * short tasks of a paid call batched with it, where alone Piscina would give those another worker.
   */
  readonly soloTasks?: readonly string[];
  /**
   * Short tasks (a signature, a voucher's recovery: tens to a hundred µs) run here, on the calling
   * thread, when the pool has no task waiting or running. A sleeping worker takes 0.25-0.45 ms to
   * wake and answer on a small VM, more than such a task itself: alone, a call pays the work, not
   * the hop. Once any task is pending, or the event loop itself is busy (`loopBusy`), every task
   * goes to the workers, so under load the event loop does no more CPU work than it did.
   */
  readonly inlineWhenIdle?: InlineTasks<Tasks>;
  /**
   * The calling thread is busy: short tasks go to the workers though none is pending (inline tasks
   * settle at once, so "none pending" held at any load). Default: loop-load.ts.
   */
  readonly loopBusy?: () => boolean;
  /** Tasks pending (waiting or running) at most; a task beyond it is refused (default POOL_MAX_QUEUE). */
  readonly maxQueue?: number;
}

/** How a task is run: `mustRun` exempts it from the queue bound. */
export interface TaskOptions {
  /**
   * Work that follows a charge (a receipt's signature) or the service's own bookkeeping: refusing
   * it would leave a payment without its answer, so it always queues.
   */
  readonly mustRun?: boolean;
}

/** A pool that runs the tasks of table `Tasks` by name. */
export interface WorkerPool<Tasks> {
  readonly size: number;
  /** Runs a task; rejects with ServiceError `busy` while the queue is full, unless `mustRun`. */
  runTask<K extends TaskName<Tasks>>(name: K, input: TaskInput<Tasks[K]>, signal?: AbortSignal, options?: TaskOptions): Promise<TaskOutput<Tasks[K]>>;
  /** True while the queue is full: new work would be refused (callers answer 503 before starting it). */
  busy(): boolean;
  /** Tasks sent to the workers so far, the messages that carried them (a batch is one), and tasks run inline. */
  sent(): { readonly tasks: number; readonly messages: number; readonly inline: number };
  /** Worker threads started and not ended now. */
  threads(): number;
  close(): Promise<void>;
}

/** What a module that only runs tasks of `Tasks` needs of the pool. */
export type TaskRunner<Tasks> = Pick<WorkerPool<Tasks>, 'runTask'>;

/**
 * Node 20 cannot strip types and its worker threads ignore `--import tsx` in execArgv: from
 * TypeScript sources the entry is a small JS file that registers tsx, then loads the .ts tasks.
 * The built service (scripts/build-server.ts) has the worker's bundle beside this code.
 */
const RUNNING_FROM_TS = import.meta.url.endsWith('.ts');
/**
 * A path, not the URL: Piscina turns a `file:` URL into a path again on every task it runs (a URL
 * parsed per task on the event loop), and a path is what it keeps.
 */
const WORKER_PATH = fileURLToPath(new URL(RUNNING_FROM_TS ? '../../workers/pool-worker-tsx.mjs' : './pool-worker.js', import.meta.url));

/** Tasks pending at most, by default: on 2 cores about 50 ms of signatures, a few seconds of the longest tasks. */
export const POOL_MAX_QUEUE = 1000;
/** What a refused caller is told to wait, seconds: the queue drains in well under that. */
export const POOL_BUSY_RETRY_AFTER_SECONDS = 1;

/** The refusal of work while the queue is full. */
export const poolBusyError = (): ServiceError<'busy'> =>
  new ServiceError('busy', 'the service is at capacity; nothing was charged; retry in a moment', { retryAfterSeconds: POOL_BUSY_RETRY_AFTER_SECONDS });

/** The 503 of work refused before it started, with `Retry-After`. */
export const poolBusyReply = (): HttpReply => errorReply(poolBusyError().body, { 'Retry-After': String(POOL_BUSY_RETRY_AFTER_SECONDS) });

/** How long a worker above the first stays alive without work. */
export const POOL_IDLE_TIMEOUT_MS = 60_000;

/** Starts the pool over the tasks of `Tasks`; threads are created lazily by Piscina up to `size`. */
export function createWorkerPool<Tasks>(config: WorkerPoolConfig<Tasks> = {}): WorkerPool<Tasks> {
  const size = config.size ?? availableParallelism();
  const piscina = new Piscina({
    filename: WORKER_PATH,
    // Piscina's run-time and wait-time histograms, one record each per task on the event loop: nothing
    // here reads them (the loop rule reads the event loop's own utilization, loop-load.ts).
    recordTiming: false,
    minThreads: Math.min(config.minThreads ?? 1, size),
    maxThreads: size,
    // Piscina's default (0) ends a thread above minThreads the moment it idles, so every burst
    // paid for a new worker's start-up (about 0.25 s of CPU from TypeScript sources, and the EVM
    // tasks' code on its first EVM task, workers/pool-worker.ts): keep them a while.
    idleTimeout: POOL_IDLE_TIMEOUT_MS,
    // A copy per worker: the caller's buffer is never transferred away.
    workerData: config.identitySeed ? { identitySeed: Uint8Array.from(config.identitySeed) } : {},
  });
  const run: RunOnPool = (input, options) => piscina.run(input, options);
  let closed = false;
  let waiting: Waiting[] = [];
  const counts = { tasks: 0, messages: 0, inline: 0 };
  // Tasks handed to the workers (waiting for the round or sent) and not settled yet.
  let pending = 0;
  const inline = (config.inlineWhenIdle ?? {}) as Readonly<Record<string, ((input: unknown) => unknown) | undefined>>;
  const solo = new Set(config.soloTasks ?? []);
  const maxQueue = config.maxQueue ?? POOL_MAX_QUEUE;
  const loopBusy = config.loopBusy ?? createLoopLoad();
  // setImmediate runs after the poll phase: every request handled in this round has asked by then.
  const flush = () => {
    const round = waiting;
    waiting = [];
    dispatch(run, round, size, solo, counts);
  };
  return {
    size,
    runTask(name, input, signal, options) {
      if (closed) return Promise.reject(new Error('worker pool is closed'));
      if (pending >= maxQueue && !options?.mustRun) return Promise.reject(poolBusyError());
      const here = inline[name];
      if (here && pending === 0 && !loopBusy()) {
        if (signal?.aborted) return Promise.reject(abortError(signal));
        counts.inline += 1;
        return new Promise((resolve) => resolve(here(input) as never));
      }
      pending += 1;
      return new Promise((resolve, reject) => {
        // Once: an aborted task of a batch is rejected at once, and its outcome still arrives later.
        let settled = false;
        const settle =
          <V>(to: (value: V) => void) =>
          (value: V) => {
            if (!settled) pending -= 1;
            settled = true;
            to(value);
          };
        const task = { name, input, signal, resolve: settle(resolve as (value: unknown) => void), reject: settle(reject) };
        if (waiting.push(task) === 1) setImmediate(flush);
      });
    },
    busy: () => pending >= maxQueue,
    sent: () => ({ ...counts }),
    threads: () => piscina.threads.length,
    async close() {
      if (closed) return;
      closed = true;
      flush();
      await piscina.close();
    },
  };
}

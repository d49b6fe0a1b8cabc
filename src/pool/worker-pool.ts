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
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { errorReply, type HttpReply, ServiceError } from '../errors.ts';
import { BATCH_TASK_NAME, type BatchedOutcome } from './task-batch.ts';

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
   * Whether the calling thread is busy enough that short tasks leave for the workers even while
   * the pool idles (default: its event-loop utilization over the last window, `createLoopLoad`).
   * Inline tasks settle at once, so "nothing pending" alone stays true under any load: at 32 paid
   * calls in flight every signature and recovery ran on the event loop while the workers slept.
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
const WORKER_URL = new URL(RUNNING_FROM_TS ? '../../workers/pool-worker-tsx.mjs' : './pool-worker.js', import.meta.url);

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

/**
 * Tasks requested in one round of the event loop leave together (task-batch.ts): up to this many
 * go to one worker as one batch; a larger round is shared among the workers, a batch each.
 */
export const BATCH_SHARE_TASKS = 4;

/** Event-loop utilization (0-1) above which the calling thread counts as busy: short tasks go to the workers. */
export const INLINE_MAX_LOOP_UTILIZATION = 0.6;
/** The window over which the utilization is read, ms: a burst turns tasks to the workers within it. */
export const LOOP_LOAD_WINDOW_MS = 50;

/**
 * The event loop's utilization over the last completed window, read lazily (no timer: a pool that
 * is not asked costs nothing). `elu` is node's `performance.eventLoopUtilization`, injectable.
 */
export function createLoopLoad(
  elu: typeof performance.eventLoopUtilization = performance.eventLoopUtilization.bind(performance),
  now: () => number = () => performance.now(),
): () => boolean {
  let mark = elu();
  let markAt = now();
  let busy = false;
  return () => {
    const t = now();
    if (t - markAt >= LOOP_LOAD_WINDOW_MS) {
      const next = elu();
      busy = elu(next, mark).utilization > INLINE_MAX_LOOP_UTILIZATION;
      mark = next;
      markAt = t;
    }
    return busy;
  };
}

/** A task waiting for the end of the event loop's round. */
interface Waiting {
  readonly name: string;
  readonly input: unknown;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/** The rejection of a task whose signal fired (named as Piscina names its own). */
function abortError(signal: AbortSignal): Error {
  const err = new Error('The task has been aborted', { cause: signal.reason });
  err.name = 'AbortError';
  return err;
}

/** `tasks` in `groups` batches of nearly equal size, in order. */
function shares<T>(tasks: readonly T[], groups: number): T[][] {
  const size = Math.ceil(tasks.length / groups);
  return Array.from({ length: Math.ceil(tasks.length / size) }, (_, i) => tasks.slice(i * size, (i + 1) * size));
}

/** Runs one batch; each task settles with its own outcome, or at once when its signal fires first. */
function sendBatch(piscina: Piscina, batch: readonly Waiting[]): void {
  const unhook = batch.map((task) => {
    if (!task.signal) return () => {};
    const onAbort = () => task.reject(abortError(task.signal!));
    task.signal.addEventListener('abort', onAbort, { once: true });
    return () => task.signal!.removeEventListener('abort', onAbort);
  });
  const tasks = batch.map(({ name, input }) => ({ name, input }));
  (piscina.run(tasks, { name: BATCH_TASK_NAME }) as Promise<BatchedOutcome[]>).then(
    (outcomes) => {
      for (const [i, task] of batch.entries()) {
        unhook[i]!();
        const outcome = outcomes[i]!;
        if (outcome.ok) task.resolve(outcome.value);
        else task.reject(outcome.error);
      }
    },
    (err: unknown) => {
      for (const [i, task] of batch.entries()) {
        unhook[i]!();
        task.reject(err);
      }
    },
  );
}

/** Runs one task as itself, with Piscina's own abort handling. */
function sendAlone(piscina: Piscina, { name, input, signal, resolve, reject }: Waiting): void {
  piscina.run(input, { name, ...(signal ? { signal } : {}) }).then(resolve, reject);
}

/**
 * Sends the round's tasks: solo tasks and a lone task as themselves, the others as batches. A task
 * whose signal already fired is refused here and never sent.
 */
function dispatch(
  piscina: Piscina,
  waiting: readonly Waiting[],
  workers: number,
  solo: ReadonlySet<string>,
  counts: { tasks: number; messages: number },
): void {
  const live = waiting.filter((task) => {
    if (task.signal?.aborted) task.reject(abortError(task.signal));
    return !task.signal?.aborted;
  });
  counts.tasks += live.length;
  const alone = live.filter((task) => solo.has(task.name));
  const batched = live.filter((task) => !solo.has(task.name));
  // A batch of one would only add the batch's wrapping.
  if (batched.length === 1) alone.push(batched.pop()!);
  for (const task of alone) sendAlone(piscina, task);
  counts.messages += alone.length;
  if (batched.length === 0) return;
  for (const batch of shares(batched, Math.min(workers, Math.ceil(batched.length / BATCH_SHARE_TASKS)))) {
    counts.messages += 1;
    sendBatch(piscina, batch);
  }
}

/** Starts the pool over the tasks of `Tasks`; threads are created lazily by Piscina up to `size`. */
export function createWorkerPool<Tasks>(config: WorkerPoolConfig<Tasks> = {}): WorkerPool<Tasks> {
  const size = config.size ?? availableParallelism();
  const piscina = new Piscina({
    filename: WORKER_URL.href,
    minThreads: Math.min(1, size),
    maxThreads: size,
    // Piscina's default (0) ends a thread above minThreads the moment it idles, so every burst
    // paid for a new worker's start-up (about 0.25 s of CPU from TypeScript sources, and the EVM
    // tasks' code on its first EVM task, workers/pool-worker.ts): keep them a while.
    idleTimeout: POOL_IDLE_TIMEOUT_MS,
    // A copy per worker: the caller's buffer is never transferred away.
    workerData: config.identitySeed ? { identitySeed: Uint8Array.from(config.identitySeed) } : {},
  });
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
    dispatch(piscina, round, size, solo, counts);
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
    async close() {
      if (closed) return;
      closed = true;
      flush();
      await piscina.close();
    },
  };
}

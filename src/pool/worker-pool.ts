/**
 * The single Piscina pool of the service (docs/contract.md#engineering-decisions): CPU work such as ed25519 signing and
 * verification runs here, never on the event loop; the identity seed is handed to every worker
 * once through workerData.
 *
 * The pool knows no task: it is typed by a task table, an object type whose methods are the
 * tasks (plain data in, plain data or a promise of it out). The composition root passes the
 * worker entry's own table (`typeof import('workers/pool-worker.ts')`), and each module that runs
 * tasks names the few it needs in a table of its own, so no domain's types gather here.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';

/** The names of the tasks of table `T`. */
export type TaskName<T> = { [K in keyof T]: T[K] extends (input: never) => unknown ? K : never }[keyof T] & string;
/** The input of task function `F`. */
export type TaskInput<F> = F extends (input: infer I) => unknown ? I : never;
/** What task function `F` resolves to. */
export type TaskOutput<F> = F extends (input: never) => infer O ? Awaited<O> : never;

export interface WorkerPoolConfig {
  /** Worker threads; default the available cores. */
  readonly size?: number | null;
  /** 32-byte ed25519 seed of the service identity, for `signEd25519`. Never logged. */
  readonly identitySeed?: Uint8Array;
}

/** A pool that runs the tasks of table `Tasks` by name. */
export interface WorkerPool<Tasks> {
  readonly size: number;
  runTask<K extends TaskName<Tasks>>(name: K, input: TaskInput<Tasks[K]>, signal?: AbortSignal): Promise<TaskOutput<Tasks[K]>>;
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

/** How long a worker above the first stays alive without work. */
export const POOL_IDLE_TIMEOUT_MS = 60_000;

/** Starts the pool over the tasks of `Tasks`; threads are created lazily by Piscina up to `size`. */
export function createWorkerPool<Tasks>(config: WorkerPoolConfig = {}): WorkerPool<Tasks> {
  const size = config.size ?? availableParallelism();
  const piscina = new Piscina({
    filename: WORKER_URL.href,
    minThreads: Math.min(1, size),
    maxThreads: size,
    // Piscina's default (0) ends a thread above minThreads the moment it idles, so every burst
    // paid for a new worker's start-up (~1.5 s from TypeScript sources): keep them a while.
    idleTimeout: POOL_IDLE_TIMEOUT_MS,
    // A copy per worker: the caller's buffer is never transferred away.
    workerData: config.identitySeed ? { identitySeed: Uint8Array.from(config.identitySeed) } : {},
  });
  let closed = false;
  return {
    size,
    runTask(name, input, signal) {
      if (closed) return Promise.reject(new Error('worker pool is closed'));
      return piscina.run(input, { name, ...(signal ? { signal } : {}) });
    },
    async close() {
      if (closed) return;
      closed = true;
      await piscina.close();
    },
  };
}

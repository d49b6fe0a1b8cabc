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
import { bundleWorkerEntry } from './worker-bundle.ts';

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
  /** Resolves once the worker entry is ready (built, from TypeScript sources); tasks wait for it anyway. */
  ready(): Promise<void>;
  runTask<K extends TaskName<Tasks>>(name: K, input: TaskInput<Tasks[K]>, signal?: AbortSignal): Promise<TaskOutput<Tasks[K]>>;
  close(): Promise<void>;
}

/** What a module that only runs tasks of `Tasks` needs of the pool. */
export type TaskRunner<Tasks> = Pick<WorkerPool<Tasks>, 'runTask'>;

/**
 * Node 20 cannot strip types and its worker threads ignore `--import tsx` in execArgv: from
 * TypeScript sources the entry is bundled to plain JS at start (worker-bundle.ts). Should that
 * fail, a small JS entry that registers tsx in the worker, then loads the .ts tasks, still works
 * at the memory cost the bundle avoids.
 */
const RUNNING_FROM_TS = import.meta.url.endsWith('.ts');
const WORKER_SOURCE = new URL('../../workers/pool-worker.ts', import.meta.url);
const WORKER_TSX_URL = new URL('../../workers/pool-worker-tsx.mjs', import.meta.url);
const WORKER_JS_URL = new URL('../../workers/pool-worker.js', import.meta.url);

async function workerEntry(): Promise<URL> {
  if (!RUNNING_FROM_TS) return WORKER_JS_URL;
  try {
    return await bundleWorkerEntry(WORKER_SOURCE);
  } catch (err) {
    console.error(`worker pool: could not bundle the worker entry (${err instanceof Error ? err.message : String(err)}); loading it through tsx`);
    return WORKER_TSX_URL;
  }
}

/** How long a worker above the first stays alive without work. */
export const POOL_IDLE_TIMEOUT_MS = 60_000;

/** Starts the pool over the tasks of `Tasks`; threads are created lazily by Piscina up to `size`. */
export function createWorkerPool<Tasks>(config: WorkerPoolConfig = {}): WorkerPool<Tasks> {
  const size = config.size ?? availableParallelism();
  // A copy per pool, taken now: the caller's buffer is never transferred away.
  const workerData = config.identitySeed ? { identitySeed: Uint8Array.from(config.identitySeed) } : {};
  const piscina = workerEntry().then((entry) => newPiscina(entry, size, workerData));
  let closed = false;
  return {
    size,
    ready: async () => void (await piscina),
    runTask(name, input, signal) {
      if (closed) return Promise.reject(new Error('worker pool is closed'));
      return piscina.then((p) => p.run(input, { name, ...(signal ? { signal } : {}) }));
    },
    async close() {
      if (closed) return;
      closed = true;
      await (await piscina).close();
    },
  };
}

function newPiscina(entry: URL, size: number, workerData: object): Piscina {
  return new Piscina({
    filename: entry.href,
    minThreads: Math.min(1, size),
    maxThreads: size,
    // Piscina's default (0) ends a thread above minThreads the moment it idles, so every burst
    // paid for a new worker's start-up (~1.5 s from TypeScript sources): keep them a while.
    idleTimeout: POOL_IDLE_TIMEOUT_MS,
    workerData,
  });
}

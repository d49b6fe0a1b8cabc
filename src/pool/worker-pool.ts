/**
 * The single Piscina pool of the service (docs/contract.md#engineering-decisions): CPU work such as
 * ed25519 signing and verification runs here, never on the event loop. Tasks are named and typed by
 * `PoolTasks`; the identity seed is handed to every worker once through workerData.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { Ed25519Check } from '../trust/ed25519.ts';
import type { EvmVerifyInput } from '../x402/evm-verify.ts';
import type { VerifyResult } from '../x402/exact-scheme.ts';
import type { PercentilesInput, PercentilesOutput } from '../caches/percentiles.ts';
import type { CurveInputPoint, CurveOutput } from '../intel/market/market-math.ts';
import type { BucketHoldersInput, HolderDistribution } from '../intel/token/holder-buckets.ts';

/** Input and output of every task the worker entry (workers/pool-worker.ts) exports. */
export interface PoolTasks {
  readonly verifyEd25519Batch: { readonly input: { readonly checks: readonly Ed25519Check[] }; readonly output: boolean[] };
  readonly signEd25519: { readonly input: { readonly message: Uint8Array }; readonly output: Uint8Array };
  readonly verifyEvmExact: { readonly input: EvmVerifyInput; readonly output: VerifyResult };
  readonly timingPercentiles: { readonly input: PercentilesInput; readonly output: PercentilesOutput };
  readonly slippageCurve: { readonly input: { readonly points: readonly CurveInputPoint[] }; readonly output: CurveOutput };
  readonly bucketHolders: { readonly input: BucketHoldersInput; readonly output: HolderDistribution };
}

export type PoolTaskName = keyof PoolTasks;

export interface WorkerPoolConfig {
  /** Worker threads; default the available cores. */
  readonly size?: number | null;
  /** 32-byte ed25519 seed of the service identity, for `signEd25519`. Never logged. */
  readonly identitySeed?: Uint8Array;
}

export interface WorkerPool {
  readonly size: number;
  runTask<K extends PoolTaskName>(name: K, input: PoolTasks[K]['input'], signal?: AbortSignal): Promise<PoolTasks[K]['output']>;
  close(): Promise<void>;
}

/**
 * Node 20 cannot strip types and its worker threads ignore `--import tsx` in execArgv: from
 * TypeScript sources the entry is a small JS file that registers tsx, then loads the .ts tasks.
 */
const RUNNING_FROM_TS = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(RUNNING_FROM_TS ? '../../workers/pool-worker-tsx.mjs' : '../../workers/pool-worker.js', import.meta.url);

/** How long a worker above the first stays alive without work. */
export const POOL_IDLE_TIMEOUT_MS = 60_000;

/** Starts the pool; threads are created lazily by Piscina up to `size`. */
export function createWorkerPool(config: WorkerPoolConfig = {}): WorkerPool {
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

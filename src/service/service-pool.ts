/**
 * The service's one worker pool over the worker entry's tasks, and the signer of the trust side
 * (receipts, checkpoints) on it.
 */
import type { Config } from '../config.ts';
import { ownBytes } from '../pool/own-bytes.ts';
import { createWorkerPool, type TaskName, type WorkerPool } from '../pool/worker-pool.ts';
import { inlinePoolTasks } from '../../workers/pool-inline.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';

/** Pool tasks of long CPU work (sorts and curves over large inputs): never batched with a paid call's short ones. */
const SOLO_POOL_TASKS: readonly TaskName<PoolTasks>[] = ['timingPercentiles', 'bucketHolders', 'slippageCurve'];

/** The pool, and `sign` (ed25519 under the identity whose 32-byte `seed` is given). */
export function createServicePool(
  config: Readonly<Pick<Config, 'poolSize' | 'poolMinThreads' | 'poolMaxQueue'>>,
  seed: Uint8Array,
  loopBusy: () => boolean,
): { pool: WorkerPool<PoolTasks>; sign: (message: Uint8Array) => Promise<Uint8Array> } {
  const pool = createWorkerPool<PoolTasks>({
    size: config.poolSize,
    minThreads: config.poolMinThreads,
    maxQueue: config.poolMaxQueue,
    identitySeed: seed,
    soloTasks: SOLO_POOL_TASKS,
    inlineWhenIdle: inlinePoolTasks(seed),
    loopBusy,
  });
  // A receipt follows a charge: the queue bound never refuses its signature. A message made by
  // `Buffer.from(string)` is a view into Node's shared 8 KiB slab, and postMessage copies a view's
  // whole buffer: a copy of its own bytes crosses to the worker instead (a few hundred bytes, not 8 KiB).
  const sign = (message: Uint8Array) => pool.runTask('signEd25519', { message: ownBytes(message) }, undefined, { mustRun: true });
  return { pool, sign };
}

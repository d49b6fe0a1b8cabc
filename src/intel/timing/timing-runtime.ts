/**
 * The timing domain over the live caches (src/caches/live-caches.ts, opened by the service before
 * any handler group: the epoch schedule, the caches and the Geyser subscription feeding them): the
 * timing source (stream first, RPC fallback) and the four handlers that read it. Tests and benches
 * open the live caches themselves with shorter windows.
 */
import type { RpcClient } from '../../chain/solana/rpc-client.ts';
import type { LiveCaches } from '../../caches/live-caches.ts';
import { TIP_EMA_SLOTS } from '../../caches/tip-floor-cache.ts';
import type { TaskRunner } from '../../pool/worker-pool.ts';
import type { FeeBands, HandlerMap } from '../handler-group.ts';
import { createEpochHandler } from './epoch.ts';
import { createPriorityFee } from './priority-fee.ts';
import { createSgpCheckpointHandler } from './sgp-checkpoint.ts';
import { createTimingSource, type TimingPoolTasks, type TimingSource } from './timing-source.ts';
import { createTipFloorHandler } from './tipfloor.ts';

const SETTLE_INTERVAL_MS = 5_000;

export interface TimingRuntimeOptions {
  readonly live: LiveCaches;
  readonly rpc: RpcClient;
  readonly pool: TaskRunner<TimingPoolTasks>;
  readonly poolMinValues?: number;
}

/** The paths the timing caches answer: the one list (the group forwards to the runtime by it). */
export const TIMING_PATHS = ['/v1/tipfloor', '/v1/priority-fee', '/v1/epoch', '/v1/sgp-checkpoint'] as const;
export type TimingPath = (typeof TIMING_PATHS)[number];

/** One handler per timing path, each answering in its path's response schema. */
export type TimingHandlers = HandlerMap<TimingPath>;

export interface TimingRuntime {
  readonly handlers: TimingHandlers;
  readonly source: TimingSource;
  feeBands(signal: AbortSignal): Promise<FeeBands>;
  close(): void;
}

/** Builds the source and the handlers over the live caches; closing the caches' stream is their opener's. */
export function createTimingRuntime(options: TimingRuntimeOptions): TimingRuntime {
  const { live, rpc, pool, poolMinValues } = options;
  const { caches, stream, timingRpc, windows } = live;
  const { feeWindowSlots, tipWindowSlots, tipHistoryEverySlots, checkpointEverySlots } = windows;
  const source = createTimingSource({ caches, stream, rpc, timingRpc, pool, ...(poolMinValues ? { poolMinValues } : {}) });
  // The RPC sampler only runs while the stream is down; stop it once the stream is back.
  const settle = setInterval(() => source.settle(), SETTLE_INTERVAL_MS);
  settle.unref();
  const fees = createPriorityFee(source, feeWindowSlots);
  return {
    handlers: {
      '/v1/tipfloor': createTipFloorHandler(source, { emaSlots: TIP_EMA_SLOTS, windowSlots: tipWindowSlots, historyEverySlots: tipHistoryEverySlots }),
      '/v1/priority-fee': fees.handler,
      '/v1/epoch': createEpochHandler(source),
      '/v1/sgp-checkpoint': createSgpCheckpointHandler(source, { checkpointEverySlots }),
    },
    source,
    feeBands: (signal) => fees.feeBands(signal),
    close() {
      clearInterval(settle);
      fees.close();
      source.close();
    },
  };
}

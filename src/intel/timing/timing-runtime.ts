/**
 * The running timing domain: opens the live caches (src/caches/live-caches.ts: the epoch schedule,
 * the caches, the Geyser subscription feeding them and the payments' signature watch, when
 * given) and builds the four handlers that read them (stream first, RPC fallback). Tests and
 * benches start it directly with shorter windows; the timing group starts it with defaults.
 */
import type { RpcClient, RpcTransport } from '../../chain/solana/rpc-client.ts';
import type { SignatureFeed } from '../../chain/geyser/signature-watch.ts';
import type { GeyserStream } from '../../chain/geyser/geyser-client.ts';
import { openLiveCaches } from '../../caches/live-caches.ts';
import { TIP_EMA_SLOTS } from '../../caches/tip-floor-cache.ts';
import type { TimingCaches } from '../../caches/timing-caches.ts';
import type { TaskRunner } from '../../pool/worker-pool.ts';
import type { FeeBands, HandlerMap } from '../handler-group.ts';
import { createEpochHandler } from './epoch.ts';
import { createPriorityFee } from './priority-fee.ts';
import { createSgpCheckpointHandler } from './sgp-checkpoint.ts';
import { createTimingSource, type TimingPoolTasks, type TimingSource } from './timing-source.ts';
import { createTipFloorHandler } from './tipfloor.ts';

const SETTLE_INTERVAL_MS = 5_000;

export interface TimingRuntimeOptions {
  readonly rpc: RpcClient;
  readonly rpcTransport: RpcTransport;
  readonly pool: TaskRunner<TimingPoolTasks>;
  readonly geyser: { readonly url: string; readonly token: string | null; readonly signatures?: SignatureFeed };
  readonly staleMs?: number;
  readonly feeWindowSlots?: number;
  readonly tipWindowSlots?: number;
  readonly tipHistoryEverySlots?: number;
  readonly checkpointEverySlots?: number;
  readonly poolMinValues?: number;
  readonly backoffInitialMs?: number;
  readonly backoffMaxMs?: number;
  /** How long start waits for the first streamed slot, ms (default STREAM_START_WAIT_MS of live-caches.ts; 0: not at all). */
  readonly startWaitMs?: number;
}

/** The paths the timing caches answer: the one list (the group forwards to the runtime by it). */
export const TIMING_PATHS = ['/v1/tipfloor', '/v1/priority-fee', '/v1/epoch', '/v1/sgp-checkpoint'] as const;
export type TimingPath = (typeof TIMING_PATHS)[number];

/** One handler per timing path, each answering in its path's response schema. */
export type TimingHandlers = HandlerMap<TimingPath>;

export interface TimingRuntime {
  readonly handlers: TimingHandlers;
  readonly source: TimingSource;
  readonly caches: TimingCaches;
  readonly stream: GeyserStream;
  feeBands(signal: AbortSignal): Promise<FeeBands>;
  close(): Promise<void>;
}

/** Opens the live caches (the stream started, its first slot awaited, bounded) and builds the handlers over them. */
export async function startTimingRuntime(options: TimingRuntimeOptions): Promise<TimingRuntime> {
  const { rpc, pool, poolMinValues, ...liveOptions } = options;
  const { caches, stream, timingRpc, windows } = await openLiveCaches(liveOptions);
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
    caches,
    stream,
    feeBands: (signal) => fees.feeBands(signal),
    async close() {
      clearInterval(settle);
      fees.close();
      source.close();
      await stream.close();
    },
  };
}

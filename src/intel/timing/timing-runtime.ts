/**
 * The running timing domain: reads the epoch schedule once, opens the Geyser subscription feeding
 * the caches (and the payments' signature watch, when given), and builds the four handlers over
 * them (stream first, RPC fallback). Tests and
 * benches start it directly with shorter windows; the timing group starts it with defaults.
 */
import { createGeyserStream, GEYSER_STALE_MS, type GeyserStream } from '../../chain/geyser/geyser-client.ts';
import type { RpcClient, RpcTransport } from '../../chain/solana/rpc-client.ts';
import type { SignatureFeed } from '../../chain/geyser/signature-watch.ts';
import type { GeyserHandlers } from '../../chain/geyser/geyser-update-router.ts';
import { createTimingRpcMethods } from '../../chain/solana/rpc-timing-methods.ts';
import { CHECKPOINT_EVERY_SLOTS } from '../../caches/slot-clock-cache.ts';
import { PRIORITY_FEE_WINDOW_SLOTS } from '../../caches/priority-fee-cache.ts';
import { TIP_EMA_SLOTS, TIP_HISTORY_EVERY_SLOTS, TIP_WINDOW_SLOTS } from '../../caches/tip-floor-cache.ts';
import { createTimingCaches, type TimingCaches } from '../../caches/timing-caches.ts';
import type { TaskRunner } from '../../pool/worker-pool.ts';
import type { FeeBands, HandlerMap } from '../handler-group.ts';
import { createEpochHandler } from './epoch.ts';
import { createPriorityFee } from './priority-fee.ts';
import { createSgpCheckpointHandler } from './sgp-checkpoint.ts';
import { createTimingSource, type TimingPoolTasks, type TimingSource } from './timing-source.ts';
import { createTipFloorHandler } from './tipfloor.ts';

/** How long start waits for the first streamed slot before serving (from the RPC meanwhile). */
export const STREAM_START_WAIT_MS = 5_000;
const SETTLE_INTERVAL_MS = 5_000;
const SCHEDULE_ATTEMPTS = 4;
const SCHEDULE_RETRY_MS = 500;

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
  /** How long start waits for the first streamed slot, ms (default STREAM_START_WAIT_MS; 0: not at all). */
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

/** The schedule is needed once, at start: a briefly unavailable RPC should not stop the service. */
async function withRetries<T>(load: () => Promise<T>, attempts = SCHEDULE_ATTEMPTS): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await load();
    } catch (error) {
      if (i >= attempts) throw error;
      await new Promise((r) => setTimeout(r, SCHEDULE_RETRY_MS * i));
    }
  }
}

/** The caches' handlers, and the signature watch's after them when there is one. */
function withSignatures(handlers: GeyserHandlers, signatures: SignatureFeed | undefined): GeyserHandlers {
  if (!signatures) return handlers;
  return {
    ...handlers,
    onSlot(slot, status, atMs, replayed) {
      handlers.onSlot(slot, status, atMs, replayed);
      signatures.onSlot(slot, status, atMs, replayed);
    },
    onTransaction(slot, tx) {
      handlers.onTransaction(slot, tx);
      signatures.onTransaction(slot, tx);
    },
  };
}

/** Starts the stream and waits (bounded) for its first slot. */
export async function startTimingRuntime(options: TimingRuntimeOptions): Promise<TimingRuntime> {
  const timingRpc = createTimingRpcMethods(options.rpcTransport);
  const schedule = await withRetries(() => timingRpc.getEpochSchedule());
  const feeWindowSlots = options.feeWindowSlots ?? PRIORITY_FEE_WINDOW_SLOTS;
  const tipWindowSlots = options.tipWindowSlots ?? TIP_WINDOW_SLOTS;
  const tipHistoryEverySlots = options.tipHistoryEverySlots ?? TIP_HISTORY_EVERY_SLOTS;
  const checkpointEverySlots = options.checkpointEverySlots ?? CHECKPOINT_EVERY_SLOTS;
  const caches = createTimingCaches({ schedule, feeWindowSlots, tipWindowSlots, tipHistoryEverySlots, checkpointEverySlots });
  const stream = createGeyserStream({
    url: options.geyser.url,
    token: options.geyser.token,
    staleMs: options.staleMs ?? GEYSER_STALE_MS,
    handlers: withSignatures(caches.handlers, options.geyser.signatures),
    ...(options.backoffInitialMs ? { backoffInitialMs: options.backoffInitialMs } : {}),
    ...(options.backoffMaxMs ? { backoffMaxMs: options.backoffMaxMs } : {}),
  });
  const source = createTimingSource({
    caches,
    stream,
    rpc: options.rpc,
    timingRpc,
    pool: options.pool,
    ...(options.poolMinValues ? { poolMinValues: options.poolMinValues } : {}),
  });
  stream.start();
  const startWaitMs = options.startWaitMs ?? STREAM_START_WAIT_MS;
  if (startWaitMs > 0) await stream.whenLive(startWaitMs);
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

/**
 * What the timing handlers read: the Geyser-fed caches while the stream is live, the RPC while it
 * is not (stale or down), and the pool for percentile work over large samples. Every answer says
 * which source it came from and how fresh it is.
 */
import type { GeyserStream } from '../../chain/geyser/geyser-client.ts';
import type { GeyserState } from '../../chain/geyser/geyser-liveness.ts';
import type { RpcClient } from '../../chain/solana/rpc-client.ts';
import type { TimingRpcMethods } from '../../chain/solana/rpc-timing-methods.ts';
import { computePercentiles, type PercentilesInput, type PercentilesOutput } from '../../caches/percentiles.ts';
import type { TimingCaches } from '../../caches/timing-caches.ts';
import type { TaskRunner } from '../../pool/worker-pool.ts';
import { createSlotSampler, type SlotSampler } from './slot-rate.ts';

/** Samples at least this large are sorted in the pool, not on the event loop. */
export const POOL_PERCENTILE_MIN_VALUES = 20_000;

export type AnswerSource = 'geyser' | 'rpc-fallback';

/** How fresh an answer is: the newest slot it reflects and how old that observation is. */
export interface Freshness {
  readonly slot: number | null;
  readonly ageMs: number | null;
  readonly stream: GeyserState;
  readonly asOf: string;
}

export interface TimingSource {
  readonly caches: TimingCaches;
  readonly stream: GeyserStream;
  readonly rpc: RpcClient;
  readonly timingRpc: TimingRpcMethods;
  /** True when answers come from the stream. */
  live(): boolean;
  /** Nearest-rank percentiles, in the pool when the sample is large. */
  percentiles(values: Float64Array, percentiles: readonly number[], signal: AbortSignal): Promise<(number | null)[]>;
  /** Freshness of an observation of `slot` made at `atMs`. */
  freshness(slot: number | null, atMs: number | null): Freshness;
  /** The RPC slot sampler used while the stream is down (started on first use). */
  fallbackSampler(): SlotSampler;
  /** Stops the fallback sampler once the stream is live again. */
  settle(): void;
  close(): void;
}

/** The pool task the timing answers run: percentiles of a large fee or tip sample. */
export interface TimingPoolTasks {
  timingPercentiles(input: PercentilesInput): PercentilesOutput;
}

export interface TimingSourceConfig {
  readonly caches: TimingCaches;
  readonly stream: GeyserStream;
  readonly rpc: RpcClient;
  readonly timingRpc: TimingRpcMethods;
  readonly pool: TaskRunner<TimingPoolTasks>;
  readonly poolMinValues?: number;
}

/** Builds the source over running caches and stream. */
export function createTimingSource(config: TimingSourceConfig): TimingSource {
  const poolMin = config.poolMinValues ?? POOL_PERCENTILE_MIN_VALUES;
  let sampler: SlotSampler | null = null;
  return {
    caches: config.caches,
    stream: config.stream,
    rpc: config.rpc,
    timingRpc: config.timingRpc,
    live: () => config.stream.isLive(),
    async percentiles(values, percentiles, signal) {
      if (values.length >= poolMin) return config.pool.runTask('timingPercentiles', { values, percentiles }, signal);
      return computePercentiles({ values, percentiles });
    },
    freshness(slot, atMs) {
      const now = Date.now();
      return { slot, ageMs: atMs === null ? null : Math.max(0, now - atMs), stream: config.stream.status().state, asOf: new Date(now).toISOString() };
    },
    fallbackSampler() {
      if (sampler === null) {
        sampler = createSlotSampler({ rpc: config.rpc });
        void sampler.start();
      }
      return sampler;
    },
    settle() {
      if (sampler !== null && config.stream.isLive()) {
        sampler.close();
        sampler = null;
      }
    },
    close() {
      sampler?.close();
      sampler = null;
    },
  };
}

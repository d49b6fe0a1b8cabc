/**
 * Measured slot rate from observed (time, slot) samples of the RPC's epoch info. Nothing is
 * assumed: a rate exists only once two samples at least MIN_RATE_SPAN_MS apart show progress.
 * Two labelled rates: `primary` over the recent window, `alt` over everything retained.
 */
import { MIN_RATE_SPAN_MS, rateBetween, type SlotRateFigures, type SlotSample } from '../../caches/slot-clock-cache.ts';
import type { EpochInfo, RpcClient } from '../../chain/solana/rpc-client.ts';

export { MIN_RATE_SPAN_MS, type SlotSample };

/** Sampling period of the background sampler. */
export const SLOT_SAMPLE_INTERVAL_MS = 1_000;
/** Recent window of the primary rate. */
export const PRIMARY_WINDOW_MS = 60_000;
/** Samples retained (and the span of the alt rate): 15 minutes at one per second. */
export const MAX_SLOT_SAMPLES = 900;
export interface SlotRate extends SlotRateFigures {
  readonly samples: number;
}

/** The rate between the oldest sample inside `windowMs` of the newest and the newest; null if unmeasurable. */
export function measureSlotRate(samples: readonly SlotSample[], windowMs: number, label: string): SlotRate | null {
  const newest = samples[samples.length - 1];
  if (!newest) return null;
  const inWindow = samples.filter((s) => newest.atMs - s.atMs <= windowMs);
  const figures = rateBetween(inWindow[0]!, newest, label);
  return figures && { ...figures, samples: inWindow.length };
}

export interface SlotSampler {
  /** Records a sample taken by someone else (e.g. a request that fetched epoch info). */
  record(info: EpochInfo, atMs?: number): void;
  samples(): readonly SlotSample[];
  /** Takes the first sample now. */
  start(): Promise<void>;
  close(): void;
}

/** Polls getEpochInfo every `intervalMs` (timer unref'd) and keeps a bounded, slot-ordered history. */
export function createSlotSampler(config: {
  readonly rpc: Pick<RpcClient, 'getEpochInfo'>;
  readonly intervalMs?: number;
  readonly maxSamples?: number;
}): SlotSampler {
  const history: SlotSample[] = [];
  const maxSamples = config.maxSamples ?? MAX_SLOT_SAMPLES;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | null = null;

  function record(info: EpochInfo, atMs = Date.now()): void {
    const last = history[history.length - 1];
    // A lagging RPC node can answer an older slot: never let the series run backwards.
    if (last && (info.absoluteSlot < last.slot || atMs < last.atMs)) return;
    history.push({ atMs, slot: info.absoluteSlot });
    if (history.length > maxSamples) history.splice(0, history.length - maxSamples);
  }

  async function sample(): Promise<void> {
    try {
      record(await config.rpc.getEpochInfo(abort.signal));
    } catch {
      // A missed sample only widens the gap between two others.
    }
  }

  return {
    record,
    samples: () => history,
    async start() {
      await sample();
      timer ??= setInterval(() => void sample(), config.intervalMs ?? SLOT_SAMPLE_INTERVAL_MS);
      timer.unref();
    },
    close() {
      if (timer) clearInterval(timer);
      abort.abort();
    },
  };
}

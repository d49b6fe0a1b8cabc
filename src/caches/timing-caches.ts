/**
 * The timing caches fed by the one Geyser subscription: priority fees, tip floor and the slot
 * clock (epoch position, slot rates, checkpoint series). `handlers` is what the stream calls;
 * every handler does constant work (or work proportional to one transaction's accounts).
 */
import type { GeyserHandlers } from '../chain/geyser/geyser-update-router.ts';
import type { EpochSchedule } from './epoch-schedule.ts';
import { createPriorityFeeCache, type PriorityFeeCache } from './priority-fee-cache.ts';
import { createSlotClockCache, type SlotClockCache } from './slot-clock-cache.ts';
import { createTipFloorCache, type TipFloorCache } from './tip-floor-cache.ts';

export interface TimingCachesConfig {
  readonly schedule: EpochSchedule;
  readonly feeWindowSlots?: number;
  readonly tipWindowSlots?: number;
  readonly tipHistoryEverySlots?: number;
  readonly checkpointEverySlots?: number;
}

export interface TimingCaches {
  readonly fees: PriorityFeeCache;
  readonly tips: TipFloorCache;
  readonly clock: SlotClockCache;
  /** The cluster's epoch schedule the caches were built over. */
  readonly schedule: EpochSchedule;
  readonly handlers: GeyserHandlers;
  /** Stream updates absorbed (slots + transactions). */
  readonly absorbed: number;
  /**
   * Calls `listener` after each slot status the caches took in (a confirmed slot's buckets are
   * complete by then), with the time the stream delivered it; returns what stops it. The live
   * streams hang here: their updates are built from the caches as they change, never polled.
   */
  onSlot(listener: SlotListener): () => void;
}

/** A slot status the caches absorbed, and when the stream delivered it (ms since the epoch). */
export type SlotListener = (slot: number, status: 'processed' | 'confirmed', atMs: number) => void;

/** Creates empty caches over the cluster's epoch schedule. */
export function createTimingCaches(config: TimingCachesConfig): TimingCaches {
  const fees = createPriorityFeeCache({ ...(config.feeWindowSlots ? { windowSlots: config.feeWindowSlots } : {}) });
  const tips = createTipFloorCache({
    ...(config.tipWindowSlots ? { windowSlots: config.tipWindowSlots } : {}),
    ...(config.tipHistoryEverySlots ? { historyEverySlots: config.tipHistoryEverySlots } : {}),
  });
  const clock = createSlotClockCache({
    schedule: config.schedule,
    ...(config.checkpointEverySlots ? { checkpointEverySlots: config.checkpointEverySlots } : {}),
  });
  let absorbed = 0;
  const listeners = new Set<SlotListener>();
  const handlers: GeyserHandlers = {
    onSubscribed(resumeFrom) {
      fees.window.reset(resumeFrom);
      tips.window.reset(resumeFrom);
    },
    onSlot(slot, status, atMs, replayed) {
      absorbed++;
      // A replayed slot arrives now but happened earlier: it must not bend the measured rates.
      if (!replayed) clock.observe(slot, atMs);
      if (status === 'processed') {
        fees.window.processed(slot);
        tips.window.processed(slot);
      } else if (status === 'confirmed') {
        fees.window.confirmed(slot);
        tips.window.confirmed(slot);
      }
      if (listeners.size === 0 || replayed || (status !== 'processed' && status !== 'confirmed')) return;
      for (const listener of listeners) listener(slot, status, atMs);
    },
    onTransaction(slot, tx) {
      absorbed++;
      fees.add(slot, { price: tx.cuPrice, writable: tx.writable });
      // A failed transaction's transfers are rolled back: its tip was never paid.
      if (!tx.failed) tips.add(slot, tx.tipLamports);
    },
  };
  return {
    fees,
    tips,
    clock,
    schedule: config.schedule,
    handlers,
    onSlot(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    get absorbed() {
      return absorbed;
    },
  };
}

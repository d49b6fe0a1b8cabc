/**
 * Jito bundle tips: lamports each landed transaction paid to the eight Jito tip accounts (top-level
 * and inner System transfers summed per transaction), over a rolling window of slots. The EMA runs
 * over each completed slot's median tip (slots without tips leave it unchanged), so it follows
 * the floor slot by slot rather than single outliers. The rolling history keeps one point per
 * interval of completed slots with that interval's own percentiles.
 */
import { computePercentiles, emaAlpha, emaStep } from './percentiles.ts';
import { createSlotWindow, type SlotBucket, type SlotWindow } from './slot-window.ts';

/** Default window: 150 slots (about a minute). */
export const TIP_WINDOW_SLOTS = 150;
/** EMA span in tipped slots. */
export const TIP_EMA_SLOTS = 20;
/** One history point per this many completed slots (about 10 s of mainnet slots). */
export const TIP_HISTORY_EVERY_SLOTS = 25;
/** History points kept (one hour at the default interval). */
export const TIP_HISTORY_MAX_POINTS = 360;

/** One interval of the rolling history. */
export interface TipHistoryPoint {
  readonly fromSlot: number;
  readonly toSlot: number;
  readonly endedAt: string;
  readonly tips: number;
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
  readonly ema: number | null;
}

export interface TipFloorConfig {
  readonly windowSlots?: number;
  readonly emaSlots?: number;
  readonly historyEverySlots?: number;
  readonly historyMaxPoints?: number;
  readonly now?: () => number;
}

export interface TipFloorCache {
  readonly window: SlotWindow<number>;
  /** Records a transaction's total tip (ignored when 0). */
  add(slot: number, lamports: number): void;
  /** Tips of the complete slots in the window and the range they span. */
  select(): { readonly tips: Float64Array; readonly fromSlot: number | null; readonly toSlot: number | null; readonly slotsCovered: number };
  /** EMA of per-slot median tips, and the first slot it includes. */
  ema(): { readonly value: number | null; readonly sinceSlot: number | null; readonly slots: number };
  history(): readonly TipHistoryPoint[];
}

/** The median (nearest rank) of a small per-slot sample. */
function medianOf(values: readonly number[]): number {
  return computePercentiles({ values: Float64Array.from(values), percentiles: [50] })[0]!;
}

/** Creates an empty tip-floor cache. */
export function createTipFloorCache(config: TipFloorConfig = {}): TipFloorCache {
  const alpha = emaAlpha(config.emaSlots ?? TIP_EMA_SLOTS);
  const every = config.historyEverySlots ?? TIP_HISTORY_EVERY_SLOTS;
  const maxPoints = config.historyMaxPoints ?? TIP_HISTORY_MAX_POINTS;
  const now = config.now ?? Date.now;
  let ema: number | null = null;
  let emaSince: number | null = null;
  let emaSlots = 0;
  const points: TipHistoryPoint[] = [];
  let interval: { fromSlot: number; slots: number; tips: number[] } | null = null;

  const closeInterval = (toSlot: number): void => {
    if (interval === null) return;
    // An interval holds at most `every` slots of tips: small enough to sort on the stream's turn.
    const [p50, p95, p99] = computePercentiles({ values: Float64Array.from(interval.tips), percentiles: [50, 95, 99] });
    points.push({
      fromSlot: interval.fromSlot,
      toSlot,
      endedAt: new Date(now()).toISOString(),
      tips: interval.tips.length,
      p50: p50 ?? null,
      p95: p95 ?? null,
      p99: p99 ?? null,
      ema: ema === null ? null : Math.round(ema),
    });
    if (points.length > maxPoints) points.splice(0, points.length - maxPoints);
    interval = null;
  };

  const onComplete = (bucket: SlotBucket<number>): void => {
    if (bucket.items.length > 0) {
      ema = emaStep(ema, medianOf(bucket.items), alpha);
      emaSince ??= bucket.slot;
      emaSlots++;
    }
    interval ??= { fromSlot: bucket.slot, slots: 0, tips: [] };
    interval.slots++;
    for (const tip of bucket.items) interval.tips.push(tip);
    if (interval.slots >= every) closeInterval(bucket.slot);
  };
  const window = createSlotWindow<number>({ windowSlots: config.windowSlots ?? TIP_WINDOW_SLOTS, onComplete });

  return {
    window,
    add(slot, lamports) {
      if (lamports > 0) window.add(slot, lamports);
    },
    select() {
      const buckets = window.completeBuckets();
      let n = 0;
      for (const b of buckets) n += b.items.length;
      const tips = new Float64Array(n);
      let i = 0;
      for (const b of buckets) for (const t of b.items) tips[i++] = t;
      return { tips, fromSlot: buckets[0]?.slot ?? null, toSlot: buckets[buckets.length - 1]?.slot ?? null, slotsCovered: buckets.length };
    },
    ema: () => ({ value: ema === null ? null : Math.round(ema), sinceSlot: emaSince, slots: emaSlots }),
    history: () => points,
  };
}

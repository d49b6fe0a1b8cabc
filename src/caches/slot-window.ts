/**
 * A rolling window of per-slot buckets fed by the Geyser stream, with coverage tracking so a
 * figure is never computed over a slot whose transactions were only partly seen:
 * - after a (re)subscription, the first `processed` slot P seen marks slots > P as covered (the
 *   stream was already open when they started); earlier slots' data are dropped;
 * - a covered slot becomes complete when its `confirmed` status arrives (Yellowstone sends a
 *   slot's transactions before the status that closes it at the stream's commitment);
 * - slots at or below `confirmed - windowSlots` are evicted (constant work per slot).
 * A gap (the stream was down) simply has no buckets: answers state the slots they cover.
 */

/** One slot's items. */
export interface SlotBucket<T> {
  readonly slot: number;
  readonly items: T[];
  complete: boolean;
}

/** Items kept per slot: far above mainnet's few thousand non-vote transactions, a hard memory bound. */
export const MAX_ITEMS_PER_SLOT = 50_000;
/** How far past the resume slot the first status of a replaying subscription may be. */
const REPLAY_TOLERANCE_SLOTS = 2;

export interface SlotWindowConfig<T> {
  readonly windowSlots: number;
  readonly maxItemsPerSlot?: number;
  /** Called when a bucket leaves (evicted, or dropped as partial on reset). */
  readonly onRemove?: (bucket: SlotBucket<T>) => void;
  /** Called once per bucket when it completes, in slot order. */
  readonly onComplete?: (bucket: SlotBucket<T>) => void;
}

export interface SlotWindow<T> {
  /**
   * A new subscription starts: incomplete buckets are dropped and coverage restarts, from
   * `resumeFrom` when the server was asked to replay from that slot (checked on the first status:
   * a server that did not replay is treated as a plain subscription).
   */
  reset(resumeFrom?: number | null): void;
  processed(slot: number): void;
  /** Adds an item of `slot`; false when the slot is not covered, already complete or full. */
  add(slot: number, item: T): boolean;
  confirmed(slot: number): void;
  /** Complete buckets inside the window, oldest first. */
  completeBuckets(): SlotBucket<T>[];
  /** The complete bucket of `slot`, or null (not covered, not yet confirmed, or evicted). */
  completeBucket(slot: number): SlotBucket<T> | null;
  /** Highest confirmed slot seen (null before any). */
  readonly lastConfirmed: number | null;
  readonly size: number;
}

/** Creates an empty window. */
export function createSlotWindow<T>(config: SlotWindowConfig<T>): SlotWindow<T> {
  const buckets = new Map<number, SlotBucket<T>>();
  const maxItems = config.maxItemsPerSlot ?? MAX_ITEMS_PER_SLOT;
  let coverFrom: number | null = null;
  let lastConfirmed: number | null = null;

  const remove = (bucket: SlotBucket<T>): void => {
    buckets.delete(bucket.slot);
    config.onRemove?.(bucket);
  };

  const bucketOf = (slot: number): SlotBucket<T> => {
    let bucket = buckets.get(slot);
    if (bucket === undefined) {
      bucket = { slot, items: [], complete: false };
      buckets.set(slot, bucket);
    }
    return bucket;
  };

  // The first status after a resumed subscription must be about the resume slot (give or take the
  // commitment lag); a later one means the server did not replay, so the gap is not covered.
  let replayCheck: number | null = null;
  const checkReplay = (slot: number): void => {
    if (replayCheck === null) return;
    if (slot > replayCheck + REPLAY_TOLERANCE_SLOTS) {
      coverFrom = null;
      for (const bucket of [...buckets.values()]) if (!bucket.complete) remove(bucket);
    }
    replayCheck = null;
  };

  const evict = (): void => {
    if (lastConfirmed === null) return;
    const floor = lastConfirmed - config.windowSlots;
    for (const bucket of buckets.values()) if (bucket.slot <= floor) remove(bucket);
  };

  return {
    reset(resumeFrom = null) {
      coverFrom = resumeFrom;
      replayCheck = resumeFrom;
      for (const bucket of [...buckets.values()]) if (!bucket.complete) remove(bucket);
    },
    processed(slot) {
      checkReplay(slot);
      coverFrom ??= slot + 1;
    },
    add(slot, item) {
      if (coverFrom === null || slot < coverFrom) return false;
      if (lastConfirmed !== null && slot <= lastConfirmed - config.windowSlots) return false;
      const bucket = bucketOf(slot);
      if (bucket.complete || bucket.items.length >= maxItems) return false;
      bucket.items.push(item);
      return true;
    },
    confirmed(slot) {
      checkReplay(slot);
      if (coverFrom === null || slot < coverFrom) return;
      if (lastConfirmed !== null && slot <= lastConfirmed) return;
      // Confirmation of a slot confirms its ancestors: close every covered slot up to it.
      const start = Math.max(coverFrom, lastConfirmed === null ? coverFrom : lastConfirmed + 1, slot - config.windowSlots + 1);
      for (let s = start; s <= slot; s++) {
        const bucket = bucketOf(s);
        if (!bucket.complete) {
          bucket.complete = true;
          config.onComplete?.(bucket);
        }
      }
      lastConfirmed = slot;
      evict();
    },
    completeBuckets() {
      const out: SlotBucket<T>[] = [];
      for (const bucket of buckets.values()) if (bucket.complete) out.push(bucket);
      return out.sort((a, b) => a.slot - b.slot);
    },
    completeBucket(slot) {
      const bucket = buckets.get(slot);
      return bucket?.complete ? bucket : null;
    },
    get lastConfirmed() {
      return lastConfirmed;
    },
    get size() {
      return buckets.size;
    },
  };
}

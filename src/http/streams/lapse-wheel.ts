/**
 * The stream sockets' one timer wheel per instance: each socket is filed under the slot of the
 * next moment it must be looked at (its `renew`, its lapse), and one tick per slot takes the due
 * ones. No timer per socket: a thousand paying sockets cost one interval and a few map entries.
 * Pure: the caller's clock says what "now" is, so tests move time themselves.
 */

/** Width of one slot of the wheel, ms: a socket is looked at within this long after its moment. */
export const WHEEL_SLOT_MS = 250;

export interface LapseWheel<T> {
  /** Files `item` to be looked at at `atMs` (or the next tick, when that is past). */
  at(item: T, atMs: number): void;
  /** Forgets every moment of `item`. */
  cancel(item: T): void;
  /** Takes every item due at `nowMs`, each once. */
  due(nowMs: number): T[];
  /** Items filed now (for /health and tests). */
  readonly size: number;
}

/** Creates an empty wheel of `slotMs`-wide slots. */
export function createLapseWheel<T>(slotMs = WHEEL_SLOT_MS): LapseWheel<T> {
  const slots = new Map<number, Set<T>>();
  const slotsOf = new Map<T, Set<number>>();
  return {
    at(item, atMs) {
      const slot = Math.ceil(atMs / slotMs);
      let bucket = slots.get(slot);
      if (!bucket) {
        bucket = new Set();
        slots.set(slot, bucket);
      }
      bucket.add(item);
      let mine = slotsOf.get(item);
      if (!mine) {
        mine = new Set();
        slotsOf.set(item, mine);
      }
      mine.add(slot);
    },
    cancel(item) {
      for (const slot of slotsOf.get(item) ?? []) {
        const bucket = slots.get(slot);
        bucket?.delete(item);
        if (bucket?.size === 0) slots.delete(slot);
      }
      slotsOf.delete(item);
    },
    due(nowMs) {
      const last = Math.floor(nowMs / slotMs);
      const out = new Set<T>();
      // Few slots are filed at once (a period's worth of distinct moments): walking them all is cheap.
      for (const [slot, bucket] of slots) {
        if (slot > last) continue;
        slots.delete(slot);
        for (const item of bucket) {
          out.add(item);
          const mine = slotsOf.get(item);
          mine?.delete(slot);
          if (mine?.size === 0) slotsOf.delete(item);
        }
      }
      return [...out];
    },
    get size() {
      return slotsOf.size;
    },
  };
}

/**
 * Compute-unit prices (micro-lamports per CU, ComputeBudget SetComputeUnitPrice; 0 when a
 * transaction sets none) of every landed non-vote transaction over a rolling window of slots,
 * with an index from each write-locked account to the transactions that locked it, kept as the
 * stream arrives (work per transaction is proportional to its writable accounts). Queries return
 * the raw sample; percentiles are computed by the caller (in the pool for large windows).
 */
import { createSlotWindow, type SlotBucket, type SlotWindow } from './slot-window.ts';

/** Default window: 150 slots, about a minute of mainnet slots. */
export const PRIORITY_FEE_WINDOW_SLOTS = 150;

/** One landed transaction as the fee cache keeps it. */
export interface FeeSample {
  readonly price: number;
  /** Writable account keys (base64 of the 32 bytes: cheap to derive from stream bytes). */
  readonly writable: readonly string[];
}

/** The sample a query selects and the slots it spans. */
export interface FeeSelection {
  readonly prices: Float64Array;
  readonly fromSlot: number | null;
  readonly toSlot: number | null;
  readonly slotsCovered: number;
  /** Transactions in the window (all accounts) and how many set no price. */
  readonly windowTransactions: number;
  readonly unpricedTransactions: number;
}

export interface PriorityFeeCache {
  readonly window: SlotWindow<FeeSample>;
  add(slot: number, sample: FeeSample): void;
  /** Every transaction of the complete slots, or (with `accounts`) those write-locking any of them. */
  select(accounts?: readonly string[]): FeeSelection;
  /** Distinct accounts in the index (bounded by the window). */
  readonly indexedAccounts: number;
}

/** Creates an empty cache over `windowSlots` slots. */
export function createPriorityFeeCache(config: { readonly windowSlots?: number } = {}): PriorityFeeCache {
  // account -> slot -> samples write-locking it
  const index = new Map<string, Map<number, FeeSample[]>>();
  const unindex = (bucket: SlotBucket<FeeSample>): void => {
    for (const sample of bucket.items) {
      for (const key of sample.writable) {
        const bySlot = index.get(key);
        if (bySlot === undefined) continue;
        bySlot.delete(bucket.slot);
        if (bySlot.size === 0) index.delete(key);
      }
    }
  };
  const window = createSlotWindow<FeeSample>({ windowSlots: config.windowSlots ?? PRIORITY_FEE_WINDOW_SLOTS, onRemove: unindex });

  function add(slot: number, sample: FeeSample): void {
    if (!window.add(slot, sample)) return;
    for (const key of sample.writable) {
      let bySlot = index.get(key);
      if (bySlot === undefined) {
        bySlot = new Map();
        index.set(key, bySlot);
      }
      let list = bySlot.get(slot);
      if (list === undefined) {
        list = [];
        bySlot.set(slot, list);
      }
      // A transaction listing an account twice is one transaction.
      if (list[list.length - 1] !== sample) list.push(sample);
    }
  }

  function select(accounts?: readonly string[]): FeeSelection {
    const buckets = window.completeBuckets();
    let total = 0;
    let unpriced = 0;
    for (const b of buckets) {
      total += b.items.length;
      for (const s of b.items) if (s.price === 0) unpriced++;
    }
    const range = {
      fromSlot: buckets[0]?.slot ?? null,
      toSlot: buckets[buckets.length - 1]?.slot ?? null,
      slotsCovered: buckets.length,
      windowTransactions: total,
      unpricedTransactions: unpriced,
    };
    if (accounts === undefined || accounts.length === 0) {
      const prices = new Float64Array(total);
      let i = 0;
      for (const b of buckets) for (const s of b.items) prices[i++] = s.price;
      return { prices, ...range };
    }
    const complete = new Set(buckets.map((b) => b.slot));
    const chosen = new Set<FeeSample>();
    for (const account of accounts) {
      const bySlot = index.get(account);
      if (bySlot === undefined) continue;
      for (const [slot, list] of bySlot) if (complete.has(slot)) for (const s of list) chosen.add(s);
    }
    const prices = new Float64Array(chosen.size);
    let i = 0;
    for (const s of chosen) prices[i++] = s.price;
    return { prices, ...range };
  }

  return {
    window,
    add,
    select,
    get indexedAccounts() {
      return index.size;
    },
  };
}

import { describe, expect, it } from 'vitest';
import { epochPosition } from '../../../src/caches/epoch-schedule.ts';
import { computePercentiles, emaAlpha, emaStep, nearestRankIndex } from '../../../src/caches/percentiles.ts';
import { createPriorityFeeCache } from '../../../src/caches/priority-fee-cache.ts';
import { createSlotClockCache } from '../../../src/caches/slot-clock-cache.ts';
import { createSlotWindow } from '../../../src/caches/slot-window.ts';
import { createTipFloorCache } from '../../../src/caches/tip-floor-cache.ts';

const pct = (values: number[], ps: number[]) => computePercentiles({ values: Float64Array.from(values), percentiles: ps });

describe('nearest-rank percentiles', () => {
  it('pick values that occurred, by rank ceil(p/100 * n)', () => {
    expect(pct([], [50])).toEqual([null]);
    expect(pct([7], [50, 99])).toEqual([7, 7]);
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted input
    expect(pct(hundred, [50, 75, 90, 95, 99])).toEqual([50, 75, 90, 95, 99]);
    expect(pct([1, 2, 3, 4], [50, 75, 99])).toEqual([2, 3, 4]);
    expect(nearestRankIndex(100, 10)).toBe(9);
    expect(nearestRankIndex(0.0001, 10)).toBe(0);
  });
  it('sort numerically and leave the input untouched', () => {
    const input = Float64Array.from([1_000_000, 9, 80]);
    expect(computePercentiles({ values: input, percentiles: [50] })).toEqual([80]);
    expect([...input]).toEqual([1_000_000, 9, 80]);
  });
});

describe('EMA', () => {
  it('starts at the first value and moves by alpha = 2/(n+1)', () => {
    expect(emaAlpha(20)).toBeCloseTo(2 / 21, 12);
    let ema: number | null = null;
    ema = emaStep(ema, 100, 0.5);
    expect(ema).toBe(100);
    ema = emaStep(ema, 200, 0.5);
    expect(ema).toBe(150);
    expect(emaStep(ema, 150, 0.1)).toBe(150);
  });
});

describe('slot window', () => {
  it('covers only slots after the first processed one, completes on confirmation, evicts past the window', () => {
    const removed: number[] = [];
    const completed: number[] = [];
    const w = createSlotWindow<string>({ windowSlots: 3, onRemove: (b) => removed.push(b.slot), onComplete: (b) => completed.push(b.slot) });
    expect(w.add(10, 'before any processed slot')).toBe(false);
    w.processed(10);
    expect(w.add(10, 'partial slot')).toBe(false);
    expect(w.add(11, 'a')).toBe(true);
    expect(w.completeBuckets()).toEqual([]);
    w.confirmed(11);
    expect(w.add(11, 'late')).toBe(false);
    w.add(13, 'c');
    w.confirmed(13); // confirms 12 (empty) and 13
    expect(completed).toEqual([11, 12, 13]);
    expect(w.completeBuckets().map((b) => [b.slot, b.items])).toEqual([
      [11, ['a']],
      [12, []],
      [13, ['c']],
    ]);
    w.confirmed(15);
    expect(w.completeBuckets().map((b) => b.slot)).toEqual([13, 14, 15]);
    expect(removed).toEqual([11, 12]);
    expect(w.size).toBe(3);
  });
  it('drops incomplete buckets on reset and restarts coverage (a gap has no buckets)', () => {
    const w = createSlotWindow<number>({ windowSlots: 100 });
    w.processed(1);
    w.add(2, 1);
    w.confirmed(2);
    w.add(3, 5);
    w.reset();
    expect(w.add(4, 1)).toBe(false);
    w.processed(6);
    w.add(7, 9);
    w.confirmed(7);
    expect(w.completeBuckets().map((b) => [b.slot, b.items])).toEqual([
      [2, [1]],
      [7, [9]],
    ]);
  });
  it('caps the items of one slot', () => {
    const w = createSlotWindow<number>({ windowSlots: 5, maxItemsPerSlot: 2 });
    w.processed(0);
    expect([w.add(1, 1), w.add(1, 2), w.add(1, 3)]).toEqual([true, true, false]);
  });
  it('a resumed subscription covers from the resume slot; one the server did not replay does not', () => {
    const w = createSlotWindow<number>({ windowSlots: 100 });
    w.processed(1);
    w.add(2, 1);
    w.confirmed(2);
    w.reset(3); // replay from slot 3
    w.processed(3); // the replay starts at the resume slot
    w.add(3, 7);
    w.add(4, 8);
    w.confirmed(4);
    expect(w.completeBuckets().map((b) => [b.slot, b.items])).toEqual([
      [2, [1]],
      [3, [7]],
      [4, [8]],
    ]);
    w.reset(5); // the server ignores from_slot and streams from slot 20
    w.add(5, 1);
    w.processed(20);
    expect(w.add(20, 1)).toBe(false);
    w.confirmed(21);
    expect(w.completeBuckets().map((b) => b.slot)).toEqual([2, 3, 4, 21]);
    expect(w.size).toBe(4); // the partial slot 5 is gone
  });
  it('keeps memory bounded over a long run', () => {
    const w = createSlotWindow<number>({ windowSlots: 50 });
    w.processed(0);
    for (let s = 1; s <= 10_000; s++) {
      w.add(s, s);
      w.confirmed(s);
    }
    expect(w.size).toBe(50);
  });
});

describe('priority-fee cache', () => {
  const filled = () => {
    const c = createPriorityFeeCache({ windowSlots: 4 });
    c.window.processed(0);
    c.add(1, { price: 100, writable: ['A', 'B'] });
    c.add(1, { price: 0, writable: ['B'] });
    c.add(2, { price: 300, writable: ['C', 'A', 'A'] });
    c.window.confirmed(2);
    c.add(3, { price: 999, writable: ['A'] }); // slot 3 not confirmed yet
    return c;
  };
  it('selects every transaction of the complete slots, zero prices included', () => {
    const s = filled().select();
    expect([...s.prices].sort()).toEqual([0, 100, 300]);
    expect(s).toMatchObject({ fromSlot: 1, toSlot: 2, slotsCovered: 2, windowTransactions: 3, unpricedTransactions: 1 });
  });
  it('narrows to transactions write-locking any given account, each counted once', () => {
    const c = filled();
    expect([...c.select(['A']).prices].sort()).toEqual([100, 300]);
    expect([...c.select(['A', 'B']).prices].sort()).toEqual([0, 100, 300]);
    expect([...c.select(['Z']).prices]).toEqual([]);
  });
  it('drops evicted slots from the account index', () => {
    const c = filled();
    c.window.confirmed(6);
    expect(c.select(['A']).prices.length).toBe(1); // slot 3 only
    c.window.confirmed(20);
    expect(c.indexedAccounts).toBe(0);
  });
});

describe('tip-floor cache', () => {
  it('EMA over per-slot medians, tip-less slots leave it unchanged; history per interval', () => {
    const t = createTipFloorCache({ windowSlots: 10, emaSlots: 3, historyEverySlots: 2, now: () => 0 });
    t.window.processed(0);
    t.add(1, 10);
    t.add(1, 30);
    t.add(1, 20); // median 20
    t.add(1, 0); // no tip: ignored
    t.window.confirmed(2); // slot 2 has no tips
    t.add(3, 40);
    t.window.confirmed(3);
    expect(t.ema()).toEqual({ value: Math.round(0.5 * 40 + 0.5 * 20), sinceSlot: 1, slots: 2 });
    const s = t.select();
    expect([...s.tips].sort((a, b) => a - b)).toEqual([10, 20, 30, 40]);
    expect(t.history()).toEqual([{ fromSlot: 1, toSlot: 2, endedAt: new Date(0).toISOString(), tips: 3, p50: 20, p95: 30, p99: 30, ema: 20 }]);
  });
});

describe('epoch schedule', () => {
  it('mainnet: 432000 slots per epoch, no warm-up', () => {
    const mainnet = { slotsPerEpoch: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 };
    expect(epochPosition(mainnet, 300_000_000)).toEqual({ epoch: 694, slotIndex: 192_000, slotsInEpoch: 432_000, absoluteSlot: 300_000_000 });
    expect(epochPosition(mainnet, 431_999)).toMatchObject({ epoch: 0, slotIndex: 431_999 });
  });
  it('warm-up epochs double from 32 slots until the first normal slot', () => {
    const warm = { slotsPerEpoch: 8192, warmup: true, firstNormalEpoch: 8, firstNormalSlot: 8160 };
    expect(epochPosition(warm, 0)).toMatchObject({ epoch: 0, slotIndex: 0, slotsInEpoch: 32 });
    expect(epochPosition(warm, 31)).toMatchObject({ epoch: 0, slotIndex: 31 });
    expect(epochPosition(warm, 32)).toMatchObject({ epoch: 1, slotIndex: 0, slotsInEpoch: 64 });
    expect(epochPosition(warm, 96)).toMatchObject({ epoch: 2, slotIndex: 0, slotsInEpoch: 128 });
    expect(epochPosition(warm, 8159)).toMatchObject({ epoch: 7, slotIndex: 4095, slotsInEpoch: 4096 });
    expect(epochPosition(warm, 8160)).toMatchObject({ epoch: 8, slotIndex: 0, slotsInEpoch: 8192 });
  });
});

describe('slot clock', () => {
  const schedule = { slotsPerEpoch: 64, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 };
  it('measures a short-window and a baseline rate from decimated samples', () => {
    const clock = createSlotClockCache({ schedule, spacingMs: 1_000 });
    expect(clock.rate(60_000, 'x')).toBeNull();
    // 0..120 s: 400 ms slots; then 120..150 s: 500 ms slots.
    let t = 0;
    let slot = 0;
    for (; t < 120_000; t += 400) clock.observe(slot++, t);
    for (; t <= 150_000; t += 500) clock.observe(slot++, t);
    expect(clock.sampleCount).toBeLessThanOrEqual(151);
    const short = clock.rate(20_000, 'short')!;
    expect(short.slotMs).toBe(500);
    const base = clock.rate(Number.POSITIVE_INFINITY, 'base')!;
    expect(base.fromSlot).toBe(0);
    expect(base.slotMs).toBeCloseTo(150_000 / (slot - 1), 1);
    clock.observe(slot - 5, t + 1_000); // a late, older slot changes nothing
    expect(clock.head()!.slot).toBe(slot - 1);
  });
  it('records checkpoints every N slots and at each epoch start, and the transitions', () => {
    const clock = createSlotClockCache({ schedule, checkpointEverySlots: 25 });
    for (let s = 50; s <= 140; s += 3) clock.observe(s, s * 400);
    expect(clock.transitions().map((x) => [x.fromEpoch, x.toEpoch, x.slot])).toEqual([
      [0, 1, 65],
      [1, 2, 128],
    ]);
    const points = clock.points().map((p) => p.absoluteSlot);
    expect(points).toContain(65);
    expect(points).toContain(128);
    expect(points).toContain(50);
    expect(points).toContain(77); // first slot past 75
    expect(clock.position()).toEqual({ epoch: 2, slotIndex: 140 - 128, slotsInEpoch: 64, absoluteSlot: 140 });
  });
  it('keeps its ring bounded', () => {
    const clock = createSlotClockCache({ schedule, capacity: 10, spacingMs: 0 });
    for (let s = 1; s <= 100; s++) clock.observe(s, s * 1000);
    expect(clock.sampleCount).toBe(10);
    expect(clock.rate(Number.POSITIVE_INFINITY, 'b')!.fromSlot).toBe(91);
  });
  it('measures a rate once per head and again once a slot arrives', () => {
    const clock = createSlotClockCache({ schedule, spacingMs: 0 });
    for (let s = 1; s <= 10; s++) clock.observe(s, s * 400);
    const first = clock.rate(60_000, 'short')!;
    expect(clock.rate(60_000, 'short')).toBe(first);
    expect(clock.rate(60_000, 'other label')!.label).toBe('other label');
    clock.observe(10, 99_000); // not a new head: the measurement stands
    expect(clock.rate(60_000, 'short')!.toSlot).toBe(10);
    clock.observe(11, 10 * 400 + 2_000); // a slow slot: the rate moves with it
    const next = clock.rate(60_000, 'short')!;
    expect(next.toSlot).toBe(11);
    expect(next.slotMs).toBeGreaterThan(first.slotMs);
    expect(clock.rate(Number.POSITIVE_INFINITY, 'base')!.toSlot).toBe(11);
  });
});

import { describe, expect, it } from 'vitest';
import { measureSlotRate } from '../../../src/intel/timing/slot-rate.ts';

describe('measureSlotRate', () => {
  it('is null until two samples a second apart show progress', () => {
    expect(measureSlotRate([], 60_000, 'x')).toBeNull();
    expect(measureSlotRate([{ atMs: 0, slot: 10 }], 60_000, 'x')).toBeNull();
    expect(
      measureSlotRate(
        [
          { atMs: 0, slot: 10 },
          { atMs: 500, slot: 11 },
        ],
        60_000,
        'x',
      ),
    ).toBeNull();
    expect(
      measureSlotRate(
        [
          { atMs: 0, slot: 10 },
          { atMs: 2000, slot: 10 },
        ],
        60_000,
        'x',
      ),
    ).toBeNull();
  });
  it('measures over the window only', () => {
    const samples = [
      { atMs: 0, slot: 0 },
      { atMs: 100_000, slot: 200 },
      { atMs: 140_000, slot: 300 },
    ];
    expect(measureSlotRate(samples, 60_000, 'recent')).toMatchObject({ label: 'recent', slotMs: 400, slots: 100, spanSeconds: 40, samples: 2 });
    expect(measureSlotRate(samples, Infinity, 'all')).toMatchObject({ slotMs: 466.7, slots: 300, samples: 3 });
  });
});

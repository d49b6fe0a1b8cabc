import { describe, expect, it } from 'vitest';
import { createSingleFlightCache } from '../../../src/caches/single-flight-cache.ts';
import { manualClock } from '../../helpers/manual-clock.ts';

/** A load the test finishes when it chooses: concurrency is decided by the test, not by a timer. */
function deferred<V>(): { promise: Promise<V>; resolve: (v: V) => void } {
  let resolve!: (v: V) => void;
  const promise = new Promise<V>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('single-flight cache', () => {
  it('makes one load for concurrent identical keys and serves the cached value after', async () => {
    const cache = createSingleFlightCache<{ n: number }>({ max: 10, ttlMs: 60_000 });
    const pending = deferred<{ n: number }>();
    let loads = 0;
    const load = () => {
      loads++;
      return pending.promise;
    };
    // All 20 callers are waiting before the one load finishes.
    const all = Promise.all(Array.from({ length: 20 }, () => cache.get('k', load)));
    pending.resolve({ n: 1 });
    const results = await all;
    expect(loads).toBe(1);
    expect(results.filter((r) => !r.shared)).toHaveLength(1);
    expect(results.every((r) => r.value.n === 1)).toBe(true);
    expect((await cache.get('k', load)).shared).toBe(true);
    expect(loads).toBe(1);
  });

  it('does not cache a failed load, and loads again after the TTL', async () => {
    const clock = manualClock();
    const cache = createSingleFlightCache<{ n: number }>({ max: 10, ttlMs: 30, now: clock.now });
    await expect(
      cache.get('k', async () => {
        throw new Error('down');
      }),
    ).rejects.toThrow('down');
    expect((await cache.get('k', async () => ({ n: 1 }))).value.n).toBe(1);
    clock.advance(29);
    expect((await cache.get('k', async () => ({ n: 2 }))).value.n).toBe(1);
    clock.advance(2);
    expect((await cache.get('k', async () => ({ n: 2 }))).value.n).toBe(2);
  });

  it('lets an aborting caller leave while the others still get the answer', async () => {
    const cache = createSingleFlightCache<{ n: number }>({ max: 10, ttlMs: 60_000 });
    const ac = new AbortController();
    const pending = deferred<{ n: number }>();
    const load = () => pending.promise;
    const first = cache.get('k', load, ac.signal);
    const second = cache.get('k', load);
    ac.abort(new Error('client left'));
    await expect(first).rejects.toThrow('client left');
    pending.resolve({ n: 7 });
    expect((await second).value.n).toBe(7);
  });

  it('stays bounded by max', async () => {
    const cache = createSingleFlightCache<{ n: number }>({ max: 3, ttlMs: 60_000 });
    for (let i = 0; i < 10; i++) await cache.get(`k${i}`, async () => ({ n: i }));
    expect(cache.size).toBe(3);
  });
});

/**
 * The new-pairs stream's source (src/intel/market/new-pairs-feed.ts): which pools of a poll are
 * new (the baseline, the dedupe by address, the order), and the loop: no source call without a
 * subscriber, one poll at a time, a poll every interval of the injected timer, each pool once,
 * a failed poll told and retried, nothing after close. Updates are checked against the catalog's
 * one schema.
 */
import { describe, expect, it } from 'vitest';
import { createNewPairsFeed, createSeenPools, type FeedTimer, freshPools, NEW_PAIRS_POLL_MS } from '../../../src/intel/market/new-pairs-feed.ts';
import type { GeckoPool } from '../../../src/market-apis/geckoterminal-client.ts';
import { updateErrors } from '../../helpers/check-response.ts';

const T0 = Date.parse('2026-11-29T07:00:00Z');
const windows = <T>(v: T | null) => ({ m5: v, h1: v, h6: v, h24: v });

function pool(address: string, createdAtMs: number | null): GeckoPool {
  return {
    address,
    name: `${address} / SOL`,
    baseMint: `${address}-mint`,
    quoteMint: 'So11111111111111111111111111111111111111112',
    baseSymbol: null,
    dex: 'launch-0',
    baseTokenPriceUsd: 0.00001,
    priceChangePct: windows(0),
    volumeUsd: windows(null),
    transactions: windows({ buys: 0, sells: 0 }),
    reserveUsd: 1234.5,
    fdvUsd: 10_000,
    marketCapUsd: null,
    createdAt: createdAtMs === null ? null : new Date(createdAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

describe('freshPools', () => {
  it('a later poll: every pool not seen before, oldest first, each once', () => {
    const seen = createSeenPools();
    expect(freshPools([pool('b', T0 - 60_000), pool('a', T0 - 120_000)], seen, null).map((p) => p.address)).toEqual(['a', 'b']);
    expect(freshPools([pool('c', T0), pool('b', T0 - 60_000), pool('a', T0 - 120_000)], seen, null).map((p) => p.address)).toEqual(['c']);
    expect(freshPools([pool('c', T0), pool('b', T0 - 60_000)], seen, null)).toEqual([]);
  });

  it('the baseline: only pools created since the wake (its whole second counts); older and undated ones are absorbed', () => {
    const seen = createSeenPools();
    const list = [pool('new', T0 + 2_000), pool('same-second', T0), pool('old', T0 - 1_000), pool('undated', null)];
    expect(freshPools(list, seen, T0 + 400).map((p) => p.address)).toEqual(['same-second', 'new']);
    // Absorbed pools stay seen: never pushed later either.
    expect(freshPools(list, seen, null)).toEqual([]);
    // An undated pool that appears after the baseline is new (pushed last: its time is unknown).
    expect(freshPools([pool('late', null), pool('x', T0 + 5_000)], seen, null).map((p) => p.address)).toEqual(['x', 'late']);
  });

  it('the seen set forgets its oldest past its bound', () => {
    const seen = createSeenPools(2);
    for (const a of ['a', 'b', 'c']) seen.add(a);
    expect([seen.has('a'), seen.has('b'), seen.has('c'), seen.size]).toEqual([false, true, true, 2]);
  });
});

/** A timer the test fires by hand. */
function manualTimer(start = T0): FeedTimer & { fire(): void; readonly pending: number; advance(ms: number): void } {
  let now = start;
  const due: (() => void)[] = [];
  return {
    now: () => now,
    after(_ms, fn) {
      due.push(fn);
      return () => {
        const i = due.indexOf(fn);
        if (i >= 0) due.splice(i, 1);
      };
    },
    fire() {
      due.shift()?.();
    },
    get pending() {
      return due.length;
    },
    advance(ms) {
      now += ms;
    },
  };
}

/** A source whose answers the test gives, one per call, counted. */
function scriptedSource() {
  const waiting: { resolve: (list: GeckoPool[]) => void; reject: (err: Error) => void }[] = [];
  let calls = 0;
  return {
    pools: (list: string) => {
      expect(list).toBe('new_pools');
      calls++;
      return new Promise<GeckoPool[]>((resolve, reject) => waiting.push({ resolve, reject }));
    },
    answer: async (list: GeckoPool[]) => {
      waiting.shift()!.resolve(list);
      await new Promise((r) => setImmediate(r));
    },
    fail: async () => {
      waiting.shift()!.reject(new Error('geckoterminal answered 503'));
      await new Promise((r) => setImmediate(r));
    },
    get calls() {
      return calls;
    },
    get inFlight() {
      return waiting.length;
    },
  };
}

function feedOf(subscribers: { n: number }) {
  const timer = manualTimer();
  const source = scriptedSource();
  const published: any[] = [];
  const faults: unknown[] = [];
  const feed = createNewPairsFeed({
    gecko: source,
    sink: { wanted: (topic) => topic === 'new-pairs' && subscribers.n > 0, publish: (_t, text) => published.push(JSON.parse(text)) },
    slot: () => 4242,
    timer,
    fault: (err) => faults.push(err),
  });
  return { timer, source, published, faults, feed };
}

describe('the new-pairs feed', () => {
  it('polls only after a subscriber woke it, one poll at a time, pushing each new pool once in the catalog schema', async () => {
    const subscribers = { n: 0 };
    const { timer, source, published, feed } = feedOf(subscribers);
    expect(source.calls).toBe(0);
    subscribers.n = 1;
    feed.wake();
    feed.wake();
    expect(source.calls).toBe(1);
    await source.answer([pool('old', T0 - 60_000)]);
    expect(published).toEqual([]);
    expect(timer.pending).toBe(1);

    timer.advance(NEW_PAIRS_POLL_MS);
    timer.fire();
    feed.wake();
    expect([source.calls, source.inFlight]).toEqual([2, 1]);
    await source.answer([pool('p1', T0 + 3_000), pool('old', T0 - 60_000)]);
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ type: 'update', topic: 'new-pairs', slot: 4242, at: T0 + NEW_PAIRS_POLL_MS, data: { poolAddress: 'p1' } });
    expect(published[0].data).toMatchObject({ baseSymbol: 'unknown', volume24hUsd: 'unknown', ageMinutes: 0 });
    expect(published[0].data).not.toHaveProperty('marketCapUsd');
    expect(updateErrors('/v1/stream/new-pairs', published[0].data)).toEqual([]);

    timer.fire();
    await source.answer([pool('p1', T0 + 3_000), pool('old', T0 - 60_000)]);
    expect(published).toHaveLength(1);
    expect(feed.status()).toMatchObject({ polling: true, polls: 3, pushed: 1, seen: 2 });
  });

  it('stops calling the source when the last subscriber left, and the next wake takes a new baseline', async () => {
    const subscribers = { n: 1 };
    const { timer, source, published, feed } = feedOf(subscribers);
    feed.wake();
    await source.answer([]);
    subscribers.n = 0;
    timer.fire();
    expect(source.calls).toBe(1);
    expect(timer.pending).toBe(0);
    expect(feed.status().polling).toBe(false);

    timer.advance(60_000);
    subscribers.n = 1;
    feed.wake();
    expect(source.calls).toBe(2);
    // Listed while nobody was subscribed: absorbed; created after the wake: pushed.
    await source.answer([pool('after', T0 + 61_000), pool('meanwhile', T0 + 30_000)]);
    expect(published.map((u) => u.data.poolAddress)).toEqual(['after']);
  });

  it('a failed poll is told and the next one comes an interval later; the baseline waits for a poll that answers', async () => {
    const subscribers = { n: 1 };
    const { timer, source, published, faults, feed } = feedOf(subscribers);
    feed.wake();
    await source.fail();
    expect(faults).toHaveLength(1);
    expect(timer.pending).toBe(1);
    timer.fire();
    await source.answer([pool('before', T0 - 5_000), pool('since', T0 + 1_000)]);
    expect(published.map((u) => u.data.poolAddress)).toEqual(['since']);
    expect(feed.status()).toMatchObject({ polls: 2, failures: 1 });
  });

  it('close aborts: nothing is pushed or scheduled after it', async () => {
    const subscribers = { n: 1 };
    const { timer, source, published, faults, feed } = feedOf(subscribers);
    feed.wake();
    feed.close();
    await source.answer([pool('late', T0 + 1_000)]);
    expect([published.length, faults.length, timer.pending]).toEqual([0, 0, 0]);
    feed.wake();
    expect(source.calls).toBe(1);
  });
});

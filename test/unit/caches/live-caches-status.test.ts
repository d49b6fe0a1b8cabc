import { describe, expect, it } from 'vitest';
import type { GeyserStatus, GeyserStream } from '../../../src/chain/geyser/geyser-client.ts';
import { geyserErrorSentence, liveCachesStatus } from '../../../src/caches/live-caches-status.ts';
import { createTimingCaches } from '../../../src/caches/timing-caches.ts';

const SCHEDULE = { slotsPerEpoch: 64, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 };

function streamWith(status: GeyserStatus, live: boolean): GeyserStream {
  return { start() {}, whenLive: async () => live, isLive: () => live, status: () => status, close: async () => {} };
}

describe('liveCachesStatus', () => {
  it('shows the stream state, the age of its last slot by the clock given, and the caches held', () => {
    const caches = createTimingCaches({ schedule: SCHEDULE });
    const status = liveCachesStatus(
      streamWith({ state: 'live', lastSlot: 41, lastSlotAtMs: 9_000, subscriptions: 2, updates: 17, lastError: null }, true),
      caches,
      9_250,
    );
    expect(status.geyser).toEqual({ state: 'live', live: true, lastSlot: 41, lastSlotAgeMs: 250, subscriptions: 2, updates: 17, lastError: null });
    expect(status.caches).toEqual({ absorbed: 0, feeSlots: 0, feeIndexedAccounts: 0, tipSlots: 0, tips: 0, checkpoints: 0 });
  });

  it('counts the tips of the complete slots in the window (what /v1/tipfloor needs), not the slots alone', () => {
    const caches = createTimingCaches({ schedule: SCHEDULE });
    const stream = streamWith({ state: 'live', lastSlot: 3, lastSlotAtMs: 0, subscriptions: 1, updates: 3, lastError: null }, true);
    caches.tips.window.processed(0);
    caches.tips.window.confirmed(2);
    expect(liveCachesStatus(stream, caches, 0).caches).toMatchObject({ tipSlots: 2, tips: 0 });
    caches.tips.add(3, 5_000);
    caches.tips.add(3, 7_000);
    expect(liveCachesStatus(stream, caches, 0).caches.tips).toBe(0);
    caches.tips.window.confirmed(3);
    expect(liveCachesStatus(stream, caches, 0).caches).toMatchObject({ tipSlots: 3, tips: 2 });
  });

  it('never shows the endpoint in a failure: the gRPC text becomes one fixed sentence', () => {
    const message = '14 UNAVAILABLE: connect ECONNREFUSED 10.1.2.3:10000 (https://geyser.example.com?token=abc)';
    const status = liveCachesStatus(
      streamWith({ state: 'connecting', lastSlot: null, lastSlotAtMs: null, subscriptions: 0, updates: 0, lastError: { message, atMs: 1 } }, false),
      createTimingCaches({ schedule: SCHEDULE }),
      5,
    );
    expect(status.geyser.lastError).toBe('the connection was reset, closed or broke the protocol');
    expect(JSON.stringify(status)).not.toMatch(/10\.1\.2\.3|example\.com|token/);
    expect(status.geyser.lastSlotAgeMs).toBeNull();
  });

  it('names each kind of failure by a fixed sentence', () => {
    expect(geyserErrorSentence('no slot update for 5000 ms')).toBe('no slot update for 5000 ms: stream treated as stale');
    expect(geyserErrorSentence('did not complete within 3000 ms')).toMatch(/connect time-out/);
    expect(geyserErrorSentence('16 UNAUTHENTICATED: bad x-token')).toMatch(/refused the x-token/);
    expect(geyserErrorSentence('something odd at https://h')).toBe('the stream failed (details in the service log)');
  });
});

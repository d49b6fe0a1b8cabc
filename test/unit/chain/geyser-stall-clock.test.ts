/**
 * The Geyser stream's stall clock (src/chain/geyser/geyser-liveness.ts): silence counts the time the
 * process was running, not the time it was blocked. On a starved process the stale check's timer
 * runs before the socket holding the next slots is read, so wall time alone called a healthy
 * stream stale at every wake-up (seen as parallel test files' streams torn down under load).
 */
import { describe, expect, it } from 'vitest';
import { createStallClock } from '../../../src/chain/geyser/geyser-liveness.ts';

const CHECK_MS = 375;
const OPENED = 1_000_000;

describe('stall clock', () => {
  it('counts silence by the checks that ran on time', () => {
    const clock = createStallClock(OPENED, CHECK_MS);
    let now = OPENED;
    for (let i = 1; i <= 4; i++) {
      now += CHECK_MS;
      expect(clock.silentMs(now, 0)).toBe(i * CHECK_MS);
    }
    now += CHECK_MS;
    expect(clock.silentMs(now, now - 100)).toBe(100);
  });

  it('a process blocked for seconds is not silence beyond twice the check period', () => {
    const clock = createStallClock(OPENED, CHECK_MS);
    const lastSlot = OPENED + 100;
    const woke = OPENED + 5_000;
    // Wall time says 4.9 s without a slot; the process ran for two check periods of it.
    expect(clock.silentMs(woke, lastSlot)).toBe(2 * CHECK_MS - 100);
    // Once running again, silence grows with time as before: a stream that stays silent is stale.
    expect(clock.silentMs(woke + CHECK_MS, lastSlot)).toBe(3 * CHECK_MS - 100);
    expect(clock.silentMs(woke + 3 * CHECK_MS, lastSlot)).toBe(5 * CHECK_MS - 100);
  });

  it('a slot after the freeze starts the count again, without the freeze carried over', () => {
    const clock = createStallClock(OPENED, CHECK_MS);
    expect(clock.silentMs(OPENED + 5_000, 0)).toBe(2 * CHECK_MS);
    const slotAt = OPENED + 5_100;
    expect(clock.silentMs(OPENED + 5_000 + CHECK_MS, slotAt)).toBe(OPENED + 5_000 + CHECK_MS - slotAt);
    expect(clock.silentMs(OPENED + 5_000 + 2 * CHECK_MS, slotAt)).toBe(OPENED + 5_000 + 2 * CHECK_MS - slotAt);
  });
});

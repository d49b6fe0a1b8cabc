import { describe, expect, it } from 'vitest';
import { createPaidTiming, withServerTiming } from '../../../src/x402/delivery/paid-timing.ts';
import { manualClock } from '../../helpers/manual-clock.ts';

const ok = { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' };

describe('paid-call timing', () => {
  it('lists the phases that ran in the paid path order, summed, with two decimals, then total', () => {
    const clock = manualClock();
    const timing = createPaidTiming({ now: clock.now });
    timing.add('settle', 800.123);
    timing.add('verify', 0.4149);
    timing.add('simulate', 3);
    timing.add('simulate', 0.25);
    clock.advance(812.5);
    expect(timing.header()).toBe('verify;dur=0.41, simulate;dur=3.25, settle;dur=800.12, total;dur=812.5');
  });

  it('lap adds the time since a reading and returns the reading it took', () => {
    const clock = manualClock(100);
    const timing = createPaidTiming({ now: clock.now });
    clock.advance(7.5);
    const t1 = timing.lap('handler', 101);
    expect(t1).toBe(107.5);
    clock.advance(2);
    expect(timing.lap('handler', t1)).toBe(109.5);
    clock.advance(1);
    expect(timing.header()).toBe('handler;dur=8.5, total;dur=10.5');
  });

  it('adds the header to a 200 only, and not when no phase ran', () => {
    const clock = manualClock();
    const ran = createPaidTiming({ now: clock.now });
    ran.add('verify', 1);
    clock.advance(4);
    expect(withServerTiming(ok, ran).headers).toEqual({ 'Content-Type': 'application/json', 'Server-Timing': 'verify;dur=1, total;dur=4' });
    const refused = { status: 402, headers: { 'PAYMENT-REQUIRED': 'x' }, body: '{}' };
    expect(withServerTiming(refused, ran)).toBe(refused);
    expect(withServerTiming(ok, createPaidTiming())).toBe(ok);
  });
});

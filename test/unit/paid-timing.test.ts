import { describe, expect, it } from 'vitest';
import { createPaidTiming, withServerTiming } from '../../src/x402/paid-timing.ts';

const ok = { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' };

describe('paid-call timing', () => {
  it('lists the phases that ran in the paid path order, summed, with two decimals, then total', () => {
    const timing = createPaidTiming();
    timing.add('settle', 800.123);
    timing.add('verify', 0.4149);
    timing.add('simulate', 3);
    timing.add('simulate', 0.25);
    const value = timing.header()!;
    expect(value).toMatch(/^verify;dur=0\.41, simulate;dur=3\.25, settle;dur=800\.12, total;dur=\d+(\.\d+)?$/);
  });

  it('lap adds the time since a reading and returns a later reading', () => {
    const timing = createPaidTiming();
    const t0 = performance.now();
    const t1 = timing.lap('handler', t0);
    expect(t1).toBeGreaterThanOrEqual(t0);
    expect(timing.header()).toMatch(/^handler;dur=\d+(\.\d+)?, total;dur=/);
  });

  it('adds the header to a 200 only, and not when no phase ran', () => {
    const ran = createPaidTiming();
    ran.add('verify', 1);
    expect(withServerTiming(ok, ran).headers).toMatchObject({
      'Content-Type': 'application/json',
      'Server-Timing': expect.stringMatching(/^verify;dur=1, total;dur=/),
    });
    const refused = { status: 402, headers: { 'PAYMENT-REQUIRED': 'x' }, body: '{}' };
    expect(withServerTiming(refused, ran)).toBe(refused);
    expect(withServerTiming(ok, createPaidTiming())).toBe(ok);
  });
});

/**
 * The service's rule for short work on the event loop (src/pool/loop-load.ts, createLoopRule): a
 * request alone in flight, with none in company over the last two windows, keeps its work on the
 * loop whatever the loop's utilization; with others in flight or lately, or before the server
 * counts its requests, the utilization decides.
 */
import { describe, expect, it } from 'vitest';
import { createLoopRule, LOOP_LOAD_WINDOW_MS } from '../../../src/pool/loop-load.ts';

describe('createLoopRule', () => {
  it('the utilization decides until the requests are counted', () => {
    let loaded = true;
    const rule = createLoopRule(() => loaded);
    expect(rule.busy()).toBe(true);
    loaded = false;
    expect(rule.busy()).toBe(false);
  });

  it('a request alone in flight (or none) stays on the loop even when the loop counts as busy', () => {
    let inFlight = 1;
    const rule = createLoopRule(
      () => true,
      () => 0,
    );
    rule.countRequests(() => inFlight);
    expect(rule.busy()).toBe(false);
    inFlight = 0;
    expect(rule.busy()).toBe(false);
    inFlight = 2;
    expect(rule.busy()).toBe(true);
  });

  it("a burst's first request, alone for a moment, is not taken for a lone call until two quiet windows passed", () => {
    let [t, inFlight] = [0, 32];
    const rule = createLoopRule(
      () => true,
      () => t,
    );
    rule.countRequests(() => inFlight);
    expect(rule.busy()).toBe(true);
    inFlight = 1;
    expect(rule.busy()).toBe(true);
    t += LOOP_LOAD_WINDOW_MS;
    expect(rule.busy()).toBe(true);
    t += LOOP_LOAD_WINDOW_MS;
    expect(rule.busy()).toBe(false);
  });

  it('with others in flight, an idle loop still takes the work', () => {
    const rule = createLoopRule(
      () => false,
      () => 0,
    );
    rule.countRequests(() => 5);
    expect(rule.busy()).toBe(false);
  });
});

/**
 * The service's rule for short work on the event loop (src/pool/loop-load.ts, createLoopRule): a
 * request alone in flight keeps its work on the loop whatever the loop's utilization; with others
 * in flight, or before the server counts its requests, the utilization decides.
 */
import { describe, expect, it } from 'vitest';
import { createLoopRule } from '../../../src/pool/loop-load.ts';

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
    const rule = createLoopRule(() => true);
    rule.countRequests(() => inFlight);
    expect(rule.busy()).toBe(false);
    inFlight = 0;
    expect(rule.busy()).toBe(false);
    inFlight = 2;
    expect(rule.busy()).toBe(true);
  });

  it('with others in flight, an idle loop still takes the work', () => {
    const rule = createLoopRule(() => false);
    rule.countRequests(() => 5);
    expect(rule.busy()).toBe(false);
  });
});

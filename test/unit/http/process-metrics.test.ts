import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProcessMetrics, type ProcessMetrics } from '../../../src/http/routes/process-metrics.ts';

let metrics: ProcessMetrics | null = null;
afterEach(() => metrics?.close());

describe('process metrics', () => {
  it('reports the heap this process holds, and more of it once more is retained', () => {
    metrics = createProcessMetrics({ windowMs: 60_000 });
    const before = metrics.snapshot();
    expect(before.rssBytes).toBeGreaterThan(before.heapUsedBytes);
    expect(before.eventLoopWindowMs).toBe(60_000);
    // 40 MB of live doubles on the JS heap: a heap figure that ignored them would be wrong.
    const retained = Array.from({ length: 40 }, (_, i) => new Array<number>(125_000).fill(i + 0.5));
    const after = metrics.snapshot();
    expect(after.heapUsedBytes - before.heapUsedBytes).toBeGreaterThan(20_000_000);
    expect(after.heapTotalBytes).toBeGreaterThanOrEqual(after.heapUsedBytes);
    expect(retained).toHaveLength(40);
  });

  it('counts memory held outside the heap apart from it', () => {
    metrics = createProcessMetrics({ windowMs: 60_000 });
    const before = metrics.snapshot();
    // 32 MB in a Buffer: outside the V8 heap, so in `external`, not in `heapUsed`.
    const held = Buffer.alloc(32 * 1024 * 1024, 1);
    const after = metrics.snapshot();
    expect(after.externalBytes - before.externalBytes).toBeGreaterThan(30_000_000);
    expect(after.heapUsedBytes - before.heapUsedBytes).toBeLessThan(10_000_000);
    expect(held.length).toBe(32 * 1024 * 1024);
  });

  it('reports no event-loop figure before the loop was sampled, then a figure once it was', async () => {
    metrics = createProcessMetrics({ windowMs: 60_000 });
    expect(metrics.snapshot().eventLoopDelayP99Ms).toBeNull();
    // Waits on the first sample instead of a guessed sleep (a 50 ms sleep failed on a loaded machine).
    await vi.waitUntil(() => metrics!.snapshot().eventLoopDelayP99Ms !== null, { timeout: 5_000, interval: 5 });
    expect(Number.isFinite(metrics.snapshot().eventLoopDelayP99Ms)).toBe(true);
  });
});

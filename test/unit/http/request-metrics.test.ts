import { describe, expect, it } from 'vitest';
import { createRequestMetrics } from '../../../src/http/routes/request-metrics.ts';

describe('request metrics', () => {
  it('counts by status and class and computes nearest-rank percentiles', () => {
    const m = createRequestMetrics();
    for (let i = 1; i <= 100; i++) m.record(i <= 90 ? 200 : 402, i);
    const s = m.snapshot();
    expect(s.total).toBe(100);
    expect(s.byStatus).toEqual({ '200': 90, '402': 10 });
    expect(s.byStatusClass).toEqual({ '2xx': 90, '4xx': 10 });
    expect(s.latencyMs).toEqual({ samples: 100, p50: 50, p95: 95, p99: 99 });
  });

  it('reports null percentiles before any request', () => {
    expect(createRequestMetrics().snapshot().latencyMs).toEqual({ samples: 0, p50: null, p95: null, p99: null });
  });
});

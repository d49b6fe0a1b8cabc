import { describe, expect, it } from 'vitest';
import { growthOf, type Sample, slopePerMinute, troughs } from '../../../bench/soak/soak-report.ts';
import { niceTicks, renderLineChart } from '../../../bench/suite/svg-line-chart.ts';

const sample = (tSeconds: number, heapUsedMiB: number): Sample => ({
  tSeconds,
  rssMiB: heapUsedMiB * 2,
  heapUsedMiB,
  heapTotalMiB: heapUsedMiB * 1.5,
  externalMiB: 1,
  eventLoopDelayP99Ms: 1,
  p99Ms: {},
});

describe('soak report', () => {
  it('fits the slope per minute, and calls a flat last half flattened', () => {
    expect(
      slopePerMinute([
        [0, 10],
        [60, 12],
        [120, 14],
      ]),
    ).toBeCloseTo(2);
    const rising = [0, 1, 2, 3, 4, 5].map((m) => sample(m * 60, 100 + 10 * m));
    const levelling = [0, 1, 2, 3, 4, 5].map((m) => sample(m * 60, m < 3 ? 100 + 10 * m : 120));
    expect(growthOf(rising, (s) => s.heapUsedMiB)).toMatchObject({ lastHalfSlopeMiBPerMin: 10, peakMiB: 150, endMiB: 150, flattened: false });
    expect(growthOf(levelling, (s) => s.heapUsedMiB)).toMatchObject({ firstHalfSlopeMiBPerMin: 10, lastHalfSlopeMiBPerMin: 0, flattened: true });
  });

  it('takes the troughs of a saw-tooth: the heap after each collection', () => {
    const saw = [100, 150, 90, 160, 95, 170, 99].map((heap, i) => sample(i * 10, heap));
    expect(troughs(saw, (s) => s.heapUsedMiB).map((s) => s.heapUsedMiB)).toEqual([90, 95]);
  });
});

describe('svg line chart', () => {
  it('snaps axes to 1, 2 or 5 times a power of ten covering the data', () => {
    expect(niceTicks(0, 9.3)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(438, 863)).toEqual([400, 500, 600, 700, 800, 900]);
    expect(niceTicks(5, 5).length).toBeGreaterThan(1);
  });

  it('draws one polyline per run of points, a gap where a point has no value, and escapes text', () => {
    const svg = renderLineChart({
      title: 'a < b & c',
      xLabel: 'minutes',
      panels: [
        {
          title: 'p99',
          yLabel: 'ms',
          series: [
            {
              name: 'paid',
              points: [
                [0, 1],
                [1, 2],
                [2, null],
                [3, 4],
                [4, 5],
              ],
            },
          ],
        },
      ],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" role="img"')).toBe(true);
    expect(svg).toContain('<title>a &lt; b &amp; c</title>');
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain('>minutes</text>');
    expect(svg).toContain('rotate(-90)" text-anchor="middle">ms</text>');
  });
});

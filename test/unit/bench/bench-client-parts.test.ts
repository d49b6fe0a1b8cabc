/**
 * An official client's call part by part (bench/payments/client-marks.ts): the medians read from a
 * marking fetch's marks and the answers' Server-Timing, the rows a report's `clientMs` give, the
 * table a run prints, and the suite's headline figures of the official client at 1 in flight.
 */
import { describe, expect, it } from 'vitest';
import { clientMedians, markingFetch, serviceTotalMs } from '../../../bench/payments/client-marks.ts';
import { clientPartsRows, clientPartsTable } from '../../../bench/payments/client-parts-table.ts';
import { budgetSection } from '../../../bench/suite/suite-channels.ts';
import { headlineMetrics } from '../../../bench/suite/suite-metrics.ts';

describe("the official client's marks", () => {
  it('splits a call of one 402 and one paid request into its parts, and leaves out calls of another shape', () => {
    const calls = [
      [0, 1, 4, 6],
      [10, 12, 15, 18],
      [20, 21, 25, 27],
      [30, 31],
    ];
    const timings = ['total;dur=1.5', 'verify;dur=0.2, total;dur=2', 'total;dur=1', ''];
    expect(clientMedians(calls, timings)).toEqual({ challenge: 1, buildAndSign: 3, paidRequest: 2, paidRequestLessService: 1 });
  });

  it("reads the service's total of a Server-Timing value, NaN without one", () => {
    expect(serviceTotalMs('verify;dur=0.31, total;dur=1.27')).toBe(1.27);
    expect(serviceTotalMs('verify;dur=0.31')).toBeNaN();
  });

  it('marks the start and end of each request of a call, a new list per call', async () => {
    const calls: number[][] = [];
    const marking = markingFetch(calls, async () => new Response('ok'));
    marking.start();
    await marking.base('http://x/');
    await marking.base('http://x/');
    marking.start();
    await marking.base('http://x/');
    expect(calls.map((m) => m.length)).toEqual([4, 2]);
    expect(calls[0]!.every((t, i, all) => i === 0 || t >= all[i - 1]!)).toBe(true);
  });
});

describe("the client's parts in a report", () => {
  const report = {
    levels: [
      {
        concurrency: 1,
        channel: { p50Ms: 1.8 },
        officialClient: {
          p50Ms: 8.6,
          clientCpuUsPerCall: 2412.4,
          clientIdleUsPerCall: 96.2,
          clientMs: { challenge: 1.1, buildAndSign: 3, paidRequest: 2.9, paidRequestService: 1.4, paidRequestLessService: 1.5, afterPaid: 0.7 },
        },
      },
      { concurrency: 8, officialClient: { p50Ms: 30, clientMs: { challenge: 4 } } },
    ],
  };

  it("finds each run with client marks, with its concurrency, p50 and the clients' CPU, and prints them as a table", () => {
    const rows = clientPartsRows(report);
    expect(rows.map((r) => [r.path, r.concurrency, r.p50Ms, r.clientCpuUs])).toEqual([
      ['levels[0].officialClient', 1, 8.6, 2412.4],
      ['levels[1].officialClient', 8, 30, null],
    ]);
    const table = clientPartsTable('channel-calls', rows).split('\n');
    expect(table[1]).toMatch(
      /^run\s+in flight\s+call p50\s+402\s+build\+sign\s+paid\s+of it service\s+paid less service\s+after paid\s+client CPU µs\s+of it idle$/,
    );
    expect(table[2]!.split(/\s+/)).toEqual(['officialClient', '1', '8.60', '1.10', '3.00', '2.90', '1.40', '1.50', '0.70', '2412', '96']);
    expect(table[3]!.split(/\s+/)).toEqual(['officialClient', '8', '30.00', '4.00', '-', '-', '-', '-', '-', '-', '-']);
  });

  it("puts the table in the suite report's budget section, after the CPU budgets", () => {
    const budget = { calls: 10, usPerCall: { total: 1, main: 1, pool: 0, other: 0 }, otherUsPerCall: { libuv: 0, platform: 0, native: 0, unclassified: 0 } };
    const withBudget = { levels: [{ ...report.levels[0], channel: { p50Ms: 1.8, cpuBudget: budget } }] };
    const section = budgetSection({ 'channel-calls': withBudget });
    expect(section.indexOf('## CPU budget of a paid call')).toBeLessThan(section.indexOf("channel-calls: the official client's call as it sees it"));
    expect(section).toMatch(/officialClient\s+1\s+8\.60\s+1\.10/);
  });

  it("gives the suite the official client's p50 and paid request at 1 in flight", () => {
    const metrics = headlineMetrics({ reports: { 'channel-calls': report } });
    expect(metrics.find((m) => m.id === 'official.c1.p50')).toMatchObject({ value: 8.6, better: 'lower' });
    expect(metrics.find((m) => m.id === 'official.c1.paidRequest')).toMatchObject({ value: 2.9, better: 'lower' });
    expect(metrics.some((m) => m.id.startsWith('official.c8'))).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { latestReportLine, withLatestReport } from '../../../bench/suite/report-files.ts';
import { datedResultFiles, datedResultName, previousResultFile } from '../../../bench/suite/result-files.ts';
import { compareRuns, headlineMetrics, type SuiteResults } from '../../../bench/suite/suite-metrics.ts';
import { cdfPoints, ledgerPlot, PLOT_FILES } from '../../../bench/suite/suite-plots.ts';
import { renderSuiteReport } from '../../../bench/suite/suite-report.ts';
import { progressLine } from '../../../bench/suite/suite.ts';
import { log2Ticks } from '../../../bench/suite/svg-line-chart.ts';

/** A round of http-challenge at 32 connections, with a sweep over 1 and 32. */
const round = (scale: number) => ({
  results: {
    hello: { rps: 40_000, cpuUsPerRequest: 12 },
    challenge402: { rps: 20_000 * scale, cpuUsPerRequest: 40 / scale },
    invalid400: { rps: 30_000 * scale, cpuUsPerRequest: 30 },
    reference402: { rps: 2_500, cpuUsPerRequest: 300 },
  },
  ratios: { challenge402VsHello: 0.5 * scale, invalid400VsHello: 0.75 * scale, cpu: { challenge402VsHello: 0.3 * scale } },
  sweep: [
    { connections: 1, rps: { hello: 9_000, challenge402: 5_000 * scale, reference402: 900 }, cpuUsPerRequest: { hello: 20 } },
    { connections: 32, rps: { hello: 40_000, challenge402: 20_000 * scale, reference402: 2_500 }, cpuUsPerRequest: { hello: 12 } },
  ],
});

/** A small results file; `scale` multiplies our throughput, `extra` adds reports. */
function fixture(scale: number, extra: Record<string, unknown> = {}): SuiteResults {
  return {
    suite: 1,
    startedAt: '2026-11-24T10:00:00.000Z',
    finishedAt: '2026-11-24T10:30:00.000Z',
    machine: {
      cpus: 2,
      cpuModel: 'Test CPU',
      node: 'v20.0.0',
      platform: 'linux 6',
      totalMemoryMiB: 4096,
      loadAverage: { start: [4.5, 3, 2], end: [5.25, 4, 3] },
    },
    options: {},
    steps: [
      { name: 'http-challenge', seconds: 120, ok: true },
      { name: 'startup', seconds: 3, ok: false, error: 'Error: dist/server/main.js is missing\n    at stack' },
    ],
    reports: {
      'http-challenge': {
        connections: 32,
        sweptConnections: [1, 32],
        seconds: 3,
        tool: 'wrk',
        rounds: [round(scale), round(scale * 1.2)],
        spreads: { challenge402VsHello: { min: 0.5 * scale, median: 0.5 * scale, max: 0.6 * scale } },
        goals: { vsHello: 0.7, vsReference: 10, metInEveryRound: { challenge402VsHello: false, invalid400VsHello: scale >= 1 } },
      },
      'paid-calls': {
        endpoint: '/v1/epoch',
        solana: {
          commitment: 'confirmed',
          levels: [{ concurrency: 1, paid: { requests: 3, failures: 0, perSecond: 1.1, p50Ms: 900, p99Ms: 950, latenciesMs: [950, 880, 900] } }],
        },
      },
      ...extra,
    },
  };
}

describe('dated result files', () => {
  const day = new Date(2026, 10, 24, 23, 59);

  it('names a run by its start date, then -2, -3 for later runs of the day; other days and scratch files do not count', () => {
    expect(datedResultName(day, [])).toBe('2026-11-24');
    expect(datedResultName(day, ['2026-11-23.json', 'ledger.json', 'soak.json'])).toBe('2026-11-24');
    expect(datedResultName(day, ['2026-11-24.json', '2026-11-24.md'])).toBe('2026-11-24-2');
    expect(datedResultName(day, ['2026-11-24.json', '2026-11-24-2.json', '2026-11-24-9.json'])).toBe('2026-11-24-10');
    expect(datedResultName(new Date(2027, 0, 5, 0, 0), [])).toBe('2027-01-05');
  });

  it('orders runs by date and sequence (10 after 9), and finds the newest run before a given one', () => {
    const files = [
      '2026-11-24-10.json',
      'http-challenge.json',
      '2026-11-24.json',
      '2026-11-24-9.json',
      '2026-11-23.json',
      '2026-11-24.md',
      '2026-11-24-1.json',
    ];
    expect(datedResultFiles(files)).toEqual(['2026-11-23.json', '2026-11-24.json', '2026-11-24-9.json', '2026-11-24-10.json']);
    expect(previousResultFile(files, '2026-11-24-10.json')).toBe('2026-11-24-9.json');
    expect(previousResultFile(files, '2026-11-24.json')).toBe('2026-11-23.json');
    expect(previousResultFile(files, '2026-11-23.json')).toBeNull();
    expect(previousResultFile(files, 'ledger.json')).toBeNull();
  });
});

describe('comparison with the previous run', () => {
  it('gives new/old for each headline figure with the better direction, and keeps figures only one run has', () => {
    const previous = fixture(1, { 'paid-call-cpu': { cpuUsPerCall: 20_000, ratio: 80 } });
    const current = fixture(2, { 'idle-memory': { embedded: { rssMiB: 300 } } });
    const rows = compareRuns(current, previous);
    const byId = new Map(rows.map((r) => [r.id, r]));
    // Our 402 doubled in both rounds: median of 20k and 24k (lower middle) against 40k and 48k.
    expect(byId.get('http.challenge402.rps')).toMatchObject({ previous: 20_000, current: 40_000, ratio: 2, better: 'higher' });
    expect(byId.get('http.challenge402.cpu')).toMatchObject({ ratio: 0.5, better: 'lower' });
    expect(byId.get('http.hello.rps')?.ratio).toBe(1);
    expect(byId.get('http.ratio.challenge402VsHello')).toMatchObject({ previous: 0.5, current: 1, ratio: 2 });
    expect(byId.get('paid.solana.c1.p50Ms')).toMatchObject({ ratio: 1, better: 'lower' });
    expect(byId.get('cpu.perCall')).toMatchObject({ previous: 20_000, current: null, ratio: null });
    expect(byId.get('idle.embedded.rss')).toMatchObject({ previous: null, current: 300, ratio: null });
  });

  it('reads no metric from a report that is missing or malformed', () => {
    expect(headlineMetrics({ reports: {} })).toEqual([]);
    expect(
      headlineMetrics({ reports: { 'http-challenge': { rounds: 'x' }, ledger: { durableAppends: { groupCommit: { appendsPerSecond: 'fast' } } } } }),
    ).toEqual([]);
  });
});

describe('suite report', () => {
  it('renders the run, its load, the goals, the plots and the comparison from the results alone', () => {
    const { markdown, plots } = renderSuiteReport('2026-11-24-2', fixture(2), { name: '2026-11-24', results: fixture(1) });
    expect(markdown).toMatch(/^# Bench report 2026-11-24-2\n/);
    expect(markdown).toContain('2 cores (Test CPU)');
    expect(markdown).toContain('Load average (1 / 5 / 15 min): 4.50 / 3.00 / 2.00 at the start, 5.25 / 4.00 / 3.00 at the end');
    expect(markdown).toContain('| `startup` | 3 s | failed: Error: dist/server/main.js is missing |');
    expect(markdown).toContain('| our 402 over hello-world | >= 0.7 | 1 / 1.2 | 0.6 / 0.72 | no |');
    expect(markdown).toContain('| our 400 over hello-world | >= 0.7 | 1.5 / 1.8 | – / – | yes |');
    expect(markdown).toContain('| 32 | 40,000 | 40,000 | 2,500 |');
    expect(markdown).toContain('![Throughput vs connections](2026-11-24-2/throughput.svg)');
    expect(markdown).toContain('## Compared with [2026-11-24](2026-11-24.md)');
    expect(markdown).toContain('| our 402 challenge, req/s at 32 connections | 20,000 | 40,000 | 2.000 | higher |  |');
    expect(markdown).toContain('No `ledger` figures in this run');
    expect(Object.keys(plots).sort()).toEqual([PLOT_FILES.paidLatency, PLOT_FILES.throughput].sort());
    expect(plots[PLOT_FILES.throughput]!.match(/<polyline /g)?.length).toBeGreaterThanOrEqual(3);
  });

  it('plots and tabulates the ledger append rate against the batch size', () => {
    const ledger = {
      durableAppends: { groupCommit: { concurrency: 64, appendsPerSecond: 5_000, ratioToReference: 12.5 } },
      batchSweep: {
        secondsPerPoint: 2,
        points: [
          { appenders: 1, groupCommitAppendsPerSecond: 400, meanBatch: 1, maxBatch: 1, referenceAppendsPerSecond: 390 },
          { appenders: 16, groupCommitAppendsPerSecond: 6_000, meanBatch: 15.5, maxBatch: 16, referenceAppendsPerSecond: 410 },
        ],
      },
    };
    const svg = ledgerPlot(ledger)!;
    expect(svg.match(/<polyline /g)).toHaveLength(3);
    expect(svg).toContain('>16</text>');
    expect(ledgerPlot({})).toBeNull();
    const { markdown, plots } = renderSuiteReport('2026-11-24', fixture(1, { ledger }), null);
    expect(plots[PLOT_FILES.ledger]).toBe(svg);
    expect(markdown).toContain('| 16 | 6,000 | 15.5 | 16 | 410 |');
    expect(markdown).toContain('At 64 in flight: group commit 5,000 appends/s, 12.5x one fsync per append.');
  });

  it('says when there is no earlier run to compare with', () => {
    expect(renderSuiteReport('2026-11-24', fixture(1), null).markdown).toContain('No earlier results file');
  });

  it('draws the latency CDF from each call, sorted, ending at 1', () => {
    expect(cdfPoints([950, 880, 900, 910])).toEqual([
      [880, 0.25],
      [900, 0.5],
      [910, 0.75],
      [950, 1],
    ]);
  });
});

describe('suite plumbing', () => {
  it('prints one progress line per step', () => {
    expect(progressLine(4, 13, 'ledger', 41.4, null)).toBe('[4/13] ledger … done in 41 s');
    expect(progressLine(2, 13, 'startup', 3, 'Error: boom\n  at x')).toBe('[2/13] startup … failed after 3 s: Error: boom');
  });

  it("points the README's latest-report line at the run, and leaves a README without markers alone", () => {
    const readme = 'a\n<!-- bench-latest -->\nold line\n<!-- /bench-latest -->\nb\n';
    const line = latestReportLine('2026-11-24', fixture(1));
    expect(line).toBe('Latest report: [bench/results/2026-11-24.md](bench/results/2026-11-24.md) (2 cores, load average 4.5 at the start, 5.25 at the end).');
    expect(withLatestReport(readme, line)).toBe(`a\n<!-- bench-latest -->\n${line}\n<!-- /bench-latest -->\nb\n`);
    expect(withLatestReport('no markers', line)).toBe('no markers');
  });

  it('puts log axis ticks on powers of two covering the data', () => {
    expect(log2Ticks(1, 128)).toEqual([1, 2, 4, 8, 16, 32, 64, 128]);
    expect(log2Ticks(3, 100)).toEqual([2, 4, 8, 16, 32, 64, 128]);
    expect(log2Ticks(4, 4)).toEqual([4, 8]);
  });
});

describe('payment channels in the suite', () => {
  const level = (concurrency: number, channel: number, base: number) => ({
    concurrency,
    channel: { perSecond: channel, p50Ms: 4 },
    officialClient: { perSecond: channel / 2 },
    exactBase: { perSecond: base },
    exactSolana: { perSecond: 1 },
    ratios: { channelVsExactBase: channel / base },
  });
  const channels = {
    'channel-calls': { levels: [level(1, 190, 20), level(32, 640, 45)] },
    sweep: {
      channel: { mintsPerSecond: 250, callP50Ms: 300, rpcRequestsPerCall: 1.8 },
      exactBase: { mintsPerSecond: 120 },
      exactSolana: { mintsPerSecond: 70 },
    },
    'voucher-recovery': { meanUs: { 'native digest recovery': 110 } },
  };

  it('compares channel calls, their ratio to exact Base, the sweep and the recovery from run to run', () => {
    const rows = compareRuns(fixture(1, channels), fixture(1, { ...channels, sweep: { ...channels.sweep, channel: { mintsPerSecond: 200 } } }));
    expect(rows.find((r) => r.id === 'channel.c32.vsBase')).toMatchObject({ current: 640 / 45, better: 'higher' });
    expect(rows.find((r) => r.id === 'sweep.channel')).toMatchObject({ previous: 200, current: 250, ratio: 1.25 });
    expect(headlineMetrics(fixture(1, channels)).find((m) => m.id === 'voucher.nativeUs')).toMatchObject({ value: 110, better: 'lower' });
  });

  it('renders the section with a row per concurrency and per scheme, and says so when the figures are missing', () => {
    const report = renderSuiteReport('2026-11-24', fixture(1, channels), null).markdown;
    expect(report).toContain('## Payment channels');
    expect(report).toContain('| 32 | 640 (p50 4 ms) | 320 | 45 | 1 | 14.2x |');
    expect(report).toContain('| channel | 250 | 300 | 1.8 |');
    expect(renderSuiteReport('2026-11-24', fixture(1), null).markdown).toContain('No `channel-calls` or `sweep` figures');
  });
});

/**
 * The suite's 20% rule against the last committed results (bench/suite/regressions.ts), the CPU
 * budget figures it compares (budget-metrics.ts), `compare`'s reading of a single benchmark's
 * report, and the budget table a benchmark prints (cpu-budget-table.ts).
 */
import { describe, expect, it } from 'vitest';
import { budgetRows, budgetTable } from '../../../bench/payments/cpu-budget-table.ts';
import { asReports, compareLines } from '../../../bench/suite/compare-command.ts';
import { budgetMetrics } from '../../../bench/suite/budget-metrics.ts';
import { isRegression, lastCommittedBefore, regressionLine, regressions } from '../../../bench/suite/regressions.ts';
import { type Comparison, compareRuns, type SuiteResults } from '../../../bench/suite/suite-metrics.ts';
import { renderSuiteReport } from '../../../bench/suite/suite-report.ts';

const row = (better: 'higher' | 'lower', previous: number | null, current: number | null): Comparison => ({
  id: 'x',
  label: 'x',
  better,
  previous,
  current,
  ratio: previous && current !== null ? current / previous : null,
});

describe('the 20% rule', () => {
  it('flags a figure worse by more than 20% in its own worse direction, and nothing at 20% or better', () => {
    expect(isRegression(row('higher', 1000, 790))).toBe(true);
    expect(isRegression(row('higher', 1000, 800))).toBe(false);
    expect(isRegression(row('higher', 1000, 5000))).toBe(false);
    expect(isRegression(row('lower', 1000, 1210))).toBe(true);
    expect(isRegression(row('lower', 1000, 1200))).toBe(false);
    expect(isRegression(row('lower', 1000, 100))).toBe(false);
  });

  it('flags nothing a run lacks or with no earlier value to scale', () => {
    expect(isRegression(row('lower', null, 5000))).toBe(false);
    expect(isRegression(row('lower', 1000, null))).toBe(false);
    expect(isRegression(row('lower', 0, 5))).toBe(false);
  });

  it('says in one line what regressed, or that nothing did and how much was compared', () => {
    const rows = [{ ...row('lower', 100, 150), label: 'channel CPU' }, row('higher', 10, 9), row('lower', null, 3)];
    expect(regressions(rows).map((r) => r.label)).toEqual(['channel CPU']);
    expect(regressionLine(rows, '2026-11-24')).toBe('REGRESSION: 1 figure worse by more than 20% than 2026-11-24: channel CPU 100 -> 150');
    expect(regressionLine([row('higher', 10, 9)], '2026-11-24')).toBe('no figure worse by more than 20% than 2026-11-24 (1 compared)');
  });

  it('takes the newest committed results file run before this one, never this one or a scratch file', () => {
    const committed = ['2026-11-24.json', '2026-11-24-2.json', 'channel-calls.json', '2026-11-20.json'];
    expect(lastCommittedBefore(committed, '2026-11-28.json')).toBe('2026-11-24-2.json');
    expect(lastCommittedBefore(committed, '2026-11-24-2.json')).toBe('2026-11-24.json');
    expect(lastCommittedBefore(committed, '2026-11-20.json')).toBeNull();
    expect(lastCommittedBefore(committed, 'channel-calls.json')).toBe('2026-11-24-2.json');
  });
});

/** A channel-calls report with the CPU budget at one concurrency; `main` is its main-thread µs per call. */
const channelCalls = (main: number) => ({
  name: 'channel-calls',
  levels: [
    {
      concurrency: 8,
      channel: {
        perSecond: 400,
        medianPhasesMs: { verify: 0.34, ledger: 6.1 },
        cpuBudget: {
          calls: 2400,
          usPerCall: { total: main + 700, main, pool: 0, other: 700 },
          otherUsPerCall: { libuv: 226, platform: 427, native: 40, unclassified: 7 },
          writeSyscallsPerCall: 3.64,
          durableSyncsPerCall: 3,
          threads: { main: 1, pool: 1, libuv: 4, platform: 6, native: 2, unclassified: 0 },
          backgroundUsPerCall: { total: 80, main: 30, pool: 0, other: 50 },
        },
      },
    },
  ],
});

const suite = (reports: Record<string, unknown>, load = 1.5): SuiteResults => ({
  suite: 1,
  startedAt: '2026-11-28T10:00:00.000Z',
  finishedAt: '2026-11-28T10:30:00.000Z',
  machine: { cpus: 2, cpuModel: 'Test CPU', node: 'v20', platform: 'linux', totalMemoryMiB: 4096, loadAverage: { start: [load, 1, 1], end: [load, 1, 1] } },
  options: {},
  steps: [],
  reports,
});

describe('the CPU budget in the comparison', () => {
  it('compares each budget figure per run and concurrency, lower being better, and flags a main thread 25% dearer', () => {
    expect(budgetMetrics({ 'channel-calls': channelCalls(1600) })).toContainEqual({
      id: 'budget.channel-calls.channel.c8.main',
      label: 'channel-calls channel, 8 in flight: service CPU µs per call, main',
      better: 'lower',
      value: 1600,
    });
    const rows = compareRuns(suite({ 'channel-calls': channelCalls(2000) }), suite({ 'channel-calls': channelCalls(1600) }));
    expect(regressions(rows).map((r) => r.id)).toEqual(['budget.channel-calls.channel.c8.main']);
    expect(compareLines(rows).filter((l) => l.startsWith('REGRESSION'))).toHaveLength(1);
  });

  it("reads a single benchmark's report as a suite with that report, so `compare` takes either", () => {
    expect(asReports(channelCalls(1)).reports['channel-calls']).toMatchObject({ name: 'channel-calls' });
    expect(asReports(suite({ ledger: {} })).reports).toEqual({ ledger: {} });
    expect(asReports({ nothing: true }).reports).toEqual({});
  });

  it('flags the regression in the report against the last committed run, with its load average', () => {
    const previous = { name: '2026-11-27', results: suite({ 'channel-calls': channelCalls(1900) }) };
    const committed = { name: '2026-11-24', results: suite({ 'channel-calls': channelCalls(1600) }, 3.25) };
    const { markdown } = renderSuiteReport('2026-11-28', suite({ 'channel-calls': channelCalls(2000) }), previous, committed);
    expect(markdown).toContain('No figure is worse by more than 20% than in 2026-11-27');
    expect(markdown).toContain('## Compared with the last committed results, [2026-11-24](2026-11-24.md)');
    expect(markdown).toContain('**1 regression over 20%** against 2026-11-24 (load average 3.25 / 1.00 / 1.00 at the start of 2026-11-24)');
    expect(markdown).toContain('| channel-calls channel, 8 in flight: service CPU µs per call, main | 1,600 | 2,000 | 1.250 | lower | **REGRESSION** |');
    expect(markdown).toContain('## CPU budget of a paid call');
  });
});

describe('the budget table', () => {
  it('finds every run with a budget, with its concurrency, and prints one aligned row and its phases each', () => {
    const rows = budgetRows(channelCalls(1677));
    expect(rows.map((r) => [r.path, r.concurrency])).toEqual([['levels[0].channel', 8]]);
    const lines = budgetTable('channel-calls', rows).split('\n');
    expect(lines[1]).toMatch(/^run\s+in flight\s+calls\s+µs\/call\s+main\s+pool\s+other\s+libuv\/v8\/native\s+of it idle\s+durable\/call\s+writes\/call$/);
    expect(lines[2]).toMatch(/^channel\s+8\s+2400\s+2377\s+1677\s+0\s+700\s+226\/427\/40 \+7\?\s+80\s+3\.00\s+3\.64$/);
    expect(lines[3]).toContain('phases p50 ms: verify 0.34  ledger 6.1');
    expect(lines[1]!.length).toBe(lines[2]!.length);
  });
});

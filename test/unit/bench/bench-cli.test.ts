/**
 * `npm run bench` as a product: `--help` lists every benchmark (one line each, with its options)
 * and every option, and loads no benchmark to do it; a mistyped option or name is a usage error
 * (exit 2) pointing at --help, never a stack trace; a run's summary names each goal met or not and
 * the ratios, and its chart draws the ratios against 1 and the goal.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_OPTIONS, BENCHMARKS } from '../../../bench/bench-catalog.ts';
import { runChart } from '../../../bench/suite/run-chart.ts';
import { findGoals, findRatios, summaryLines } from '../../../bench/suite/run-summary.ts';
import { repositoryRoot } from '../../helpers/import-layers.ts';

const ROOT = repositoryRoot(import.meta.url);

function bench(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'run.ts'), ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    );
  });
}

describe('npm run bench -- --help', () => {
  it('lists every benchmark on one line with its options, and every option', async () => {
    const run = await bench(['--help']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    for (const b of BENCHMARKS) {
      const line = lines.filter((l) => new RegExp(`^  [* ] ${b.name} `).test(l));
      expect(line, b.name).toHaveLength(1);
      expect(line[0]).toContain(b.summary);
      for (const option of b.options) expect(line[0]).toContain(`--${option}`);
    }
    for (const option of [...Object.keys(BENCH_OPTIONS), 'json', 'help']) expect(run.stdout).toMatch(new RegExp(`^  --${option} `, 'm'));
  });

  it('a mistyped option or name: exit 2, one sentence and where the list is, no stack trace', async () => {
    for (const args of [['--bogus'], ['no-such-bench']]) {
      const run = await bench(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('npm run bench -- --help lists the benchmarks and their options');
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
  });
});

describe("a run's summary and chart", () => {
  const report = {
    name: 'example',
    ratios: { challenge402P999: 1.08, idleLoopP99: 2 },
    levels: [{ concurrency: 8, channelVsExactBase: 3.5, latenciesMs: [1, 2, 3] }],
    goal: { maxRatio: 1.5, met: false },
  };

  it('finds the ratios (not the goal bound) and the goals wherever the report holds them', () => {
    expect(findRatios(report).map((r) => r.path)).toEqual(['ratios.challenge402P999', 'ratios.idleLoopP99']);
    expect(findRatios({ levels: [{ ratios: { a: 1 } }], x: { toReferenceRatio: 0.5 } }).map((r) => `${r.path}=${r.value}`)).toEqual([
      'levels[0].ratios.a=1',
      'x.toReferenceRatio=0.5',
    ]);
    expect(findGoals(report)).toEqual([{ path: 'goal', value: false }]);
  });

  it('says each goal met or not and the ratios, with the load average', () => {
    const lines = summaryLines('example', report, { start: 1.25, end: 2 });
    expect(lines[0]).toBe('example: done (load average 1.25 at the start, 2.00 at the end)');
    expect(lines).toContain('  goal goal: NOT met');
    expect(lines).toContain('  ratio ratios.idleLoopP99: 2.00');
  });

  it('draws the ratios as bars, with the line at 1 and the goal', () => {
    const svg = runChart('example', report);
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain('ratios.challenge402P999');
    expect(svg).toContain('1 (the reference)');
    expect(svg).toContain('goal 1.5');
    expect(runChart('nothing', { name: 'nothing', seconds: 3 })).toBeNull();
  });
});

/**
 * `npm run bench -- compare [old.json] [new.json]`: each headline figure of two results in a
 * table, new/old, flagged when worse by more than 20% (regressions.ts); exits 1 when any is, so a
 * script or a reviewer can stop on it. Without `new`, the newest dated results file; without `old`,
 * the newest results file committed before it, as committed. Either may be a single benchmark's
 * report (`bench/results/channel-calls.json` after `npm run bench -- channel-calls`): its figures
 * are compared with that benchmark's in the other file.
 */
import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { lastCommittedRun, latestResults } from './report-files.ts';
import { isRegression, regressionLine } from './regressions.ts';
import { type Comparison, compareRuns, type SuiteResults } from './suite-metrics.ts';

type Reports = Pick<SuiteResults, 'reports'>;

/** A suite results file as it is, a single benchmark's report as a suite with that one report. */
export function asReports(json: unknown): Reports {
  const o = (json ?? {}) as Record<string, unknown>;
  if (o.suite === 1 && o.reports !== null && typeof o.reports === 'object') return { reports: o.reports as Record<string, unknown> };
  return { reports: typeof o.name === 'string' ? { [o.name]: o } : {} };
}

/** The rows both runs have, one line each: flag, new/old, the figure and its two values. */
export function compareLines(rows: readonly Comparison[]): string[] {
  return rows
    .filter((r) => r.ratio !== null)
    .map(
      (r) =>
        `${isRegression(r) ? 'REGRESSION' : '          '}  ${r.ratio!.toFixed(3).padStart(7)}  ${r.label}: ${r.previous} -> ${r.current} (${r.better} is better)`,
    );
}

const load = (path: string): Reports => asReports(JSON.parse(readFileSync(path, 'utf8')));

/** Runs the command; returns the exit code (1 when a figure is flagged, 2 when there is nothing to compare). */
export function runCompare(args: readonly string[], resultsDir: string): number {
  const latest = latestResults(resultsDir);
  const newPath = args[1] ?? (latest ? join(resultsDir, latest) : null);
  if (!newPath) {
    console.error(`no dated results file in ${relative(process.cwd(), resultsDir)}: run \`npm run bench\` first, or name two files`);
    return 2;
  }
  const committed = args[0] ? null : lastCommittedRun(resultsDir, basename(newPath));
  if (!args[0] && !committed) {
    console.error(`no committed results file before ${basename(newPath)}: name the file to compare with`);
    return 2;
  }
  const old = args[0] ? load(args[0]) : committed!.results;
  const oldName = args[0] ?? `${committed!.name} (committed)`;
  const rows = compareRuns(load(newPath), old);
  console.log([`${relative(process.cwd(), newPath)} against ${oldName}:`, ...compareLines(rows), regressionLine(rows, oldName)].join('\n'));
  return rows.some((r) => isRegression(r)) ? 1 : 0;
}

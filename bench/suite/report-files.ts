/**
 * Writes a suite run's report files from its results file: `<name>.md` and the plots in
 * `<name>/` beside it, compared with the newest results file run before it and with the newest
 * committed before it (a figure worse by more than 20% flagged). When the run is the
 * newest in bench/results/, its plots are also copied to docs/images/bench/ and README.md's link to the latest
 * report (between the `bench-latest` markers) is pointed at it.
 *
 *   npm run bench -- report [bench/results/<date>.json]   (re-renders without running anything)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { datedResultFiles, previousResultFile } from './result-files.ts';
import { committedResultFiles, committedText, lastCommittedBefore, regressionLine } from './regressions.ts';
import { compareRuns, type SuiteResults } from './suite-metrics.ts';
import { type PreviousRun, renderSuiteReport } from './suite-report.ts';

const ROOT = join(import.meta.dirname, '..', '..');
/** Where the README's plots live: the latest run's, overwritten by each newer run. */
export const DOCS_PLOTS_DIR = join(ROOT, 'docs', 'images', 'bench');
const README = join(ROOT, 'README.md');
/** Only runs in the repository's own results directory are published to the README. */
const RESULTS_DIR = join(ROOT, 'bench', 'results');
const MARKER_OPEN = '<!-- bench-latest -->';
const MARKER_CLOSE = '<!-- /bench-latest -->';

/** `readme` with the text between the bench-latest markers replaced by `line`; unchanged without markers. */
export function withLatestReport(readme: string, line: string): string {
  const from = readme.indexOf(MARKER_OPEN);
  const to = readme.indexOf(MARKER_CLOSE);
  if (from < 0 || to < from) return readme;
  return `${readme.slice(0, from + MARKER_OPEN.length)}\n${line}\n${readme.slice(to)}`;
}

/** The README's line naming the latest report. */
export function latestReportLine(name: string, results: Pick<SuiteResults, 'machine'>): string {
  const m = results.machine;
  return `Latest report: [bench/results/${name}.md](bench/results/${name}.md) (${m.cpus} cores, load average ${m.loadAverage.start[0]} at the start, ${m.loadAverage.end[0]} at the end).`;
}

const readResults = (file: string): SuiteResults => JSON.parse(readFileSync(file, 'utf8')) as SuiteResults;

/** The newest results file committed (at HEAD) before `current` in `resultsDir`, read as committed, or null. */
export function lastCommittedRun(resultsDir: string, current: string | null): PreviousRun | null {
  const file = lastCommittedBefore(committedResultFiles(resultsDir), current);
  return file ? { name: basename(file, '.json'), results: JSON.parse(committedText(resultsDir, file)) as SuiteResults } : null;
}

/**
 * Renders the report of `file` (a dated results file in `resultsDir`); returns the paths written
 * and the line saying which figures are worse by more than 20% than the last committed results.
 */
export function writeReport(resultsDir: string, file: string): { written: string[]; regressions: string } {
  const files = readdirSync(resultsDir);
  const name = basename(file, '.json');
  const results = readResults(join(resultsDir, `${name}.json`));
  const previousFile = previousResultFile(files, `${name}.json`);
  const previous = previousFile ? { name: basename(previousFile, '.json'), results: readResults(join(resultsDir, previousFile)) } : null;
  const committed = lastCommittedRun(resultsDir, `${name}.json`);
  const { markdown, plots } = renderSuiteReport(name, results, previous, committed);
  const flags = committed ? regressionLine(compareRuns(results, committed.results), committed.name) : 'no committed results to compare with';
  const written = [join(resultsDir, `${name}.md`)];
  writeFileSync(written[0]!, markdown);
  mkdirSync(join(resultsDir, name), { recursive: true });
  for (const [plot, svg] of Object.entries(plots)) {
    writeFileSync(join(resultsDir, name, plot), svg);
    written.push(join(resultsDir, name, plot));
  }
  if (resolve(resultsDir) === RESULTS_DIR && datedResultFiles(files).at(-1) === `${name}.json`) {
    mkdirSync(DOCS_PLOTS_DIR, { recursive: true });
    for (const [plot, svg] of Object.entries(plots)) writeFileSync(join(DOCS_PLOTS_DIR, plot), svg);
    written.push(`${relative(ROOT, DOCS_PLOTS_DIR)}/`);
    const readme = existsSync(README) ? readFileSync(README, 'utf8') : '';
    const updated = withLatestReport(readme, latestReportLine(name, results));
    if (updated !== readme) {
      writeFileSync(README, updated);
      written.push('README.md');
    }
  }
  return { written: written.map((p) => relative(ROOT, p) || p), regressions: flags };
}

/** The newest dated results file in `resultsDir`, or null. */
export function latestResults(resultsDir: string): string | null {
  return existsSync(resultsDir) ? (datedResultFiles(readdirSync(resultsDir)).at(-1) ?? null) : null;
}

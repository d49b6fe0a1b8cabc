/**
 * Regressions against the last committed results: a headline figure that moved more than 20% in
 * its worse direction is flagged (issue 40's rule). The flag is a question, not a verdict: on the
 * shared 2-core project machine request rates of the same code move by up to half between rounds
 * (docs/benchmarks.md), CPU per call much less, so the load averages of both runs are printed
 * beside the flags, and a flagged rate on a loaded run is answered by running again.
 */
import { execFileSync } from 'node:child_process';
import { datedResultFiles, parseResultName } from './result-files.ts';
import type { Comparison } from './suite-metrics.ts';

/** How far worse a figure may move before it is flagged: 0.2 is 20% of the earlier value. */
export const REGRESSION_THRESHOLD = 0.2;

/**
 * Whether a row moved more than `threshold` in its worse direction: a higher-is-better figure
 * below (1 - threshold) times its earlier value, a lower-is-better one above (1 + threshold) times.
 */
export function isRegression(row: Pick<Comparison, 'better' | 'previous' | 'current'>, threshold = REGRESSION_THRESHOLD): boolean {
  const { previous, current } = row;
  if (previous === null || current === null || previous <= 0) return false;
  return row.better === 'higher' ? current < previous * (1 - threshold) : current > previous * (1 + threshold);
}

/** The flagged rows of a comparison. */
export const regressions = (rows: readonly Comparison[], threshold = REGRESSION_THRESHOLD): Comparison[] => rows.filter((r) => isRegression(r, threshold));

/** One line for stderr: how many figures regressed against `against`, and which. */
export function regressionLine(rows: readonly Comparison[], against: string): string {
  const flagged = regressions(rows);
  const pct = `${Math.round(REGRESSION_THRESHOLD * 100)}%`;
  if (flagged.length === 0) return `no figure worse by more than ${pct} than ${against} (${rows.filter((r) => r.ratio !== null).length} compared)`;
  const change = (r: Comparison) => `${r.label} ${r.previous} -> ${r.current}`;
  return `REGRESSION: ${flagged.length} figure${flagged.length === 1 ? '' : 's'} worse by more than ${pct} than ${against}: ${flagged.map(change).join('; ')}`;
}

/** The newest of the `committed` dated result files run before `current`, or the newest of all when `current` is not a dated name. */
export function lastCommittedBefore(committed: readonly string[], current: string | null): string | null {
  const run = current === null ? null : parseResultName(current);
  const dated = datedResultFiles(committed).filter((f) => f !== current);
  if (!run) return dated.at(-1) ?? null;
  const before = (f: string) => {
    const r = parseResultName(f)!;
    return r.date < run.date || (r.date === run.date && r.seq < run.seq);
  };
  return dated.filter(before).at(-1) ?? null;
}

/** File names of the results files committed under `dir` (at HEAD), or [] outside a git work tree. */
export function committedResultFiles(dir: string): string[] {
  try {
    const out = execFileSync('git', ['ls-tree', '--name-only', 'HEAD', './'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out.split('\n').filter((f) => f.endsWith('.json'));
  } catch {
    // Not a git work tree (a copy of the results elsewhere): no committed baseline to compare with.
    return [];
  }
}

/** The committed text (at HEAD) of `file` in `dir`. */
export function committedText(dir: string, file: string): string {
  return execFileSync('git', ['show', `HEAD:./${file}`], { cwd: dir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/**
 * Vitest's file order: the longest files first (docs/development.md, "Test layout and parallelism").
 * Files are handed to the workers in this order, so a long file started last runs on alone while the
 * other workers have nothing left: the run's tail. Longest first, the short files fill the gaps at
 * the end instead.
 *
 * Vitest orders by the durations it cached from the last run in node_modules/.vite, but a clean
 * clone (CI) has none, and vitest then hands out the larger files first: a poor guess of a file's
 * time (in a whole-suite run with almost no cache, a 155 s unit file started 2,019 s in and ran
 * on with little beside it). A file's duration is taken from that cache when it has one, else from
 * test/file-durations.json (committed, written by `node scripts/test-durations.mjs <report.json>`
 * from a run's JSON report), else the median of the list (a new or renamed file). Group order
 * (`sequence.groupOrder`) still comes first, then the isolated files (below): the order only changes
 * which file a free worker takes next, never which files run or how.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds per file path (relative to the root), from a measured run. */
const KNOWN: Readonly<Record<string, number>> = JSON.parse(readFileSync(new URL('../file-durations.json', import.meta.url), 'utf8'));
const known = Object.values(KNOWN).sort((a, b) => a - b);
/** What a file missing from the list is taken to last. */
const UNKNOWN_SECONDS = known[Math.floor(known.length / 2)] ?? 0;

export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification): number => {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      if (cached) return cached.duration / 1000;
      return KNOWN[path] ?? UNKNOWN_SECONDS;
    };
    const order = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    // Isolated files first, as vitest has it: a shared worker is kept for the next file only while the
    // queue's next file is a shared one too; an isolated file between two shared ones would end it.
    const isolated = (spec: TestSpecification) => (spec.project.config.isolate ? 0 : 1);
    const withSeconds = files.map((spec) => ({ spec, seconds: seconds(spec) }));
    withSeconds.sort((a, b) => order(a.spec) - order(b.spec) || isolated(a.spec) - isolated(b.spec) || b.seconds - a.seconds);
    return withSeconds.map((s) => s.spec);
  }
}

/**
 * The bench suite: `npm run bench` with no names runs every benchmark but the soak, one after
 * another, with a progress line per step on stderr, and collects their reports into one dated
 * results file, bench/results/<YYYY-MM-DD>.json (`-2`, `-3` for later runs of the same day), with
 * the machine's core count and load average at the start and the end. Then it renders the
 * markdown report and its plots beside it (report-files.ts), compared with the previous run and
 * the last committed one; its last line on stderr names the figures worse by more than 20%.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { datedResultName } from './result-files.ts';
import { writeReport } from './report-files.ts';
import type { SuiteResults } from './suite-metrics.ts';

/** One step of the suite: a name (the report's key) and what runs it. */
export interface SuiteStep {
  readonly name: string;
  readonly run: () => Promise<Record<string, unknown> | null>;
}

const MIB = 1024 * 1024;
const ROOT = join(import.meta.dirname, '..', '..');

/** `npm run build`: startup and paid-call-cpu measure dist/server/, which must be these sources. */
export const BUILD_STEP: SuiteStep = {
  name: 'build',
  run: async () => {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    return null;
  },
};

/** The progress line of a finished step, e.g. `[4/13] ledger … done in 41 s`. */
export function progressLine(index: number, total: number, name: string, seconds: number, error: string | null): string {
  const took = `${Math.round(seconds)} s`;
  return `[${index}/${total}] ${name} … ${error === null ? `done in ${took}` : `failed after ${took}: ${error.split('\n')[0]}`}`;
}

function machine(): Omit<SuiteResults['machine'], 'loadAverage'> {
  const cores = cpus();
  return {
    cpus: cores.length,
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${platform()} ${release()}`,
    totalMemoryMiB: Math.round(totalmem() / MIB),
  };
}

const loadAverage = () => loadavg().map((x) => Math.round(x * 100) / 100);

/**
 * Runs `steps` in order and writes the results file after each (a run cut short keeps what it
 * measured), then the report. A failed step is recorded and the suite goes on. Returns the file.
 */
export async function runSuite(steps: readonly SuiteStep[], options: Record<string, unknown>, resultsDir: string): Promise<string> {
  mkdirSync(resultsDir, { recursive: true });
  const started = new Date();
  const name = datedResultName(started, readdirSync(resultsDir));
  const file = join(resultsDir, `${name}.json`);
  const start = loadAverage();
  const done: Array<SuiteResults['steps'][number]> = [];
  const reports: Record<string, unknown> = {};
  const write = () => {
    const results: SuiteResults = {
      suite: 1,
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { ...machine(), loadAverage: { start, end: loadAverage() } },
      options,
      steps: done,
      reports,
    };
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  };
  process.stderr.write(`bench suite: ${steps.length} steps into ${relative(ROOT, file)} (load average ${start.join(' ')}, ${cpus().length} cores)\n`);
  for (const [i, step] of steps.entries()) {
    const t0 = performance.now();
    let error: string | null = null;
    try {
      const report = await step.run();
      if (report) reports[step.name] = report;
    } catch (err) {
      error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    }
    const seconds = Math.round((performance.now() - t0) / 100) / 10;
    done.push({ name: step.name, seconds, ok: error === null, ...(error === null ? {} : { error }) });
    write();
    process.stderr.write(`${progressLine(i + 1, steps.length, step.name, seconds, error)}\n`);
  }
  const { written, regressions } = writeReport(resultsDir, `${name}.json`);
  process.stderr.write(`bench suite: wrote ${relative(ROOT, file)}, ${written.join(', ')}\n`);
  // The last line, where a reader looks first: what got worse by more than 20% than the committed results.
  process.stderr.write(`bench suite: ${regressions}\n`);
  return file;
}

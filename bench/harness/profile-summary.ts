/**
 * Summarizes a V8 CPU profile (`node --cpu-prof`): the functions with the most self time, as a
 * share of the busy (non-idle) samples. The HTTP benchmark's `--profile DIR` writes the service
 * process's profiles there (one per thread) and the load runs' times on that process's clock; this
 * reads the main thread's profile and counts only samples inside the load runs, so start-up
 * (module loading) and shutdown stay out of the summary.
 *
 *   node --import tsx bench/harness/profile-summary.ts DIR [--top 15]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

/** The file in a profile directory that lists the load runs, ms since the process was spawned. */
export const PROFILE_WINDOWS_FILE = 'windows.json';
/** Trimmed from each end of a window: the profile's clock starts a little after the spawn. */
const WINDOW_MARGIN_MS = 250;

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** One line of the summary: a function (name and file:line) and its share of busy self time. */
export interface SelfTimeEntry {
  readonly fn: string;
  readonly selfMs: number;
  readonly share: number;
}

/** V8's pseudo-frames that are not work: waiting for events. `(program)` (native code: uWS, libuv) stays in. */
const IDLE = new Set(['(idle)', '(root)']);

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${basename(url)}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
}

/** The `top` functions by self time, grouped by function and location. */
export function topSelfTime(
  profile: CpuProfile,
  top: number,
  windows: ReadonlyArray<{ readonly fromMs: number; readonly toMs: number }> = [],
): { busyMs: number; windowMs: number; entries: SelfTimeEntry[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, number>();
  const inWindow = (ms: number) => windows.length === 0 || windows.some((w) => ms >= w.fromMs + WINDOW_MARGIN_MS && ms <= w.toMs - WINDOW_MARGIN_MS);
  let busyUs = 0;
  let atUs = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    atUs += dt;
    const node = byId.get(id);
    if (!node || IDLE.has(node.callFrame.functionName) || !inWindow(atUs / 1000)) return;
    busyUs += dt;
    const key = label(node);
    selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
  });
  const entries = [...selfUs]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => ({ fn, selfMs: Math.round(us / 100) / 10, share: Math.round((us / busyUs) * 1000) / 1000 }));
  const windowMs = windows.reduce((sum, w) => sum + Math.max(0, w.toMs - w.fromMs - 2 * WINDOW_MARGIN_MS), 0);
  return { busyMs: Math.round(busyUs / 1000), windowMs: Math.round(windows.length === 0 ? atUs / 1000 : windowMs), entries };
}

/** When a profile's process started writing it, as its name says (CPU.<yyyymmdd>.<hhmmss>...). */
const startedAt = (name: string): number => Number(name.split('.').slice(1, 3).join(''));

/** The main thread's profile in `dir` (as http-challenge --profile leaves it), summarized inside the load runs. */
export function summarizeProfileDir(dir: string, top: number): { file: string; busyMs: number; windowMs: number; entries: SelfTimeEntry[] } {
  const windowsPath = join(dir, PROFILE_WINDOWS_FILE);
  const windows = existsSync(windowsPath) ? (JSON.parse(readFileSync(windowsPath, 'utf8')) as Array<{ fromMs: number; toMs: number }>) : [];
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (the event loop).
  // An earlier run's profiles may still be there: the newest is this run's, as the windows file is.
  const main = readdirSync(dir)
    .filter((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f))
    .sort((a, b) => startedAt(a) - startedAt(b));
  if (main.length === 0) throw new Error(`${dir} holds no main-thread profile`);
  const file = join(dir, main.at(-1)!);
  return { file: basename(file), ...topSelfTime(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top, windows) };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' } } });
  for (const dir of positionals) {
    const { file, busyMs, windowMs, entries } = summarizeProfileDir(dir, Number(values.top));
    console.log(`${file}: main thread busy ${busyMs} ms of ${windowMs} ms under load`);
    for (const e of entries) console.log(`${(e.share * 100).toFixed(1).padStart(5)}%  ${String(e.selfMs).padStart(8)} ms  ${e.fn}`);
  }
}

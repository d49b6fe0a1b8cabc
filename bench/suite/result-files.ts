/**
 * Names of the suite's dated result files in bench/results/: `<YYYY-MM-DD>.json` for the first
 * run of a day, `<YYYY-MM-DD>-2.json`, `-3` for the next ones, so every run keeps its file and
 * the files sort in run order. The per-benchmark scratch files (`ledger.json`, `soak.json`) do
 * not match and are never taken for a suite result.
 */

const DATED_NAME = /^(\d{4}-\d{2}-\d{2})(?:-(\d+))?\.json$/;

/** The run's date as `YYYY-MM-DD`, on the machine's calendar (the day the user started it). */
export function dateStamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Date and sequence number (1 for an unsuffixed name) of a dated result file, or null. */
export function parseResultName(file: string): { readonly date: string; readonly seq: number } | null {
  const m = DATED_NAME.exec(file);
  if (!m || (m[2] !== undefined && Number(m[2]) < 2)) return null;
  return { date: m[1]!, seq: m[2] === undefined ? 1 : Number(m[2]) };
}

/** Run order of two dated result files: by date, then by sequence number. */
function compareRuns(a: { date: string; seq: number }, b: { date: string; seq: number }): number {
  return a.date === b.date ? a.seq - b.seq : a.date < b.date ? -1 : 1;
}

/** The base name (no extension) for a new run started at `date`, given the files already there. */
export function datedResultName(date: Date, existing: readonly string[]): string {
  const stamp = dateStamp(date);
  const taken = existing.map(parseResultName).filter((r) => r?.date === stamp);
  if (taken.length === 0) return stamp;
  return `${stamp}-${Math.max(...taken.map((r) => r!.seq)) + 1}`;
}

/** Dated result files among `files`, oldest run first. */
export function datedResultFiles(files: readonly string[]): string[] {
  return files
    .map((file) => ({ file, run: parseResultName(file) }))
    .filter((f): f is { file: string; run: { date: string; seq: number } } => f.run !== null)
    .sort((a, b) => compareRuns(a.run, b.run))
    .map((f) => f.file);
}

/** The newest dated result file run before `current` (a file name among `files`), or null. */
export function previousResultFile(files: readonly string[], current: string): string | null {
  const run = parseResultName(current);
  if (!run) return null;
  const earlier = datedResultFiles(files).filter((f) => compareRuns(parseResultName(f)!, run) < 0);
  return earlier.at(-1) ?? null;
}

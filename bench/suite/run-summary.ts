/**
 * What `npm run bench -- NAME` prints when a benchmark ends, for a person: a few lines (the load
 * average, each goal met or not, the ratios, the headline figures the suite tracks, a paid-call
 * report's CPU budget table), then where the JSON and the chart went. The whole report stays in
 * the JSON file; `--json` prints it instead.
 *
 * Goals and ratios are found by name anywhere in a report (a `goal`/`goals` object's `met`, any
 * number whose key says `ratio` or sits under `ratios`), so a new benchmark is summarized without
 * a line here, and one that names its figures so is read as it means them.
 */
import { budgetRows, budgetTable } from '../payments/cpu-budget-table.ts';
import { clientPartsRows, clientPartsTable } from '../payments/client-parts-table.ts';
import { headlineMetrics } from './suite-metrics.ts';

/** Most ratio lines printed; the rest are in the file. */
const MAX_RATIOS = 12;
const MAX_HEADLINES = 12;

/** One named figure found in a report. */
export interface Found<T> {
  /** Where it sits, e.g. `levels[1].ratios.channelVsExactBase`. */
  readonly path: string;
  readonly value: T;
}

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object';

function walk(node: unknown, path: string, visit: (path: string, key: string, value: unknown, parentKey: string) => void, parentKey = ''): void {
  if (Array.isArray(node)) {
    // Per-sample arrays (latencies) hold no named figure; a list of levels or rounds does.
    if (node.length > 0 && !isObject(node[0])) return;
    for (const [i, x] of node.entries()) walk(x, `${path}[${i}]`, visit, parentKey);
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    const at = path ? `${path}.${key}` : key;
    visit(at, key, value, parentKey);
    walk(value, at, visit, key);
  }
}

/** Every ratio of the report: a finite number whose key names a ratio, or any number under `ratios`. */
export function findRatios(report: unknown): Found<number>[] {
  const out: Found<number>[] = [];
  walk(report, '', (path, key, value, parentKey) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return;
    // A goal's bound (`goal.maxRatio`) is not a measured ratio.
    if (/^goals?$/i.test(parentKey)) return;
    if (/ratio/i.test(key) || /^ratios$/i.test(parentKey)) out.push({ path, value });
  });
  return out;
}

/** Every goal of the report: `met` (or `ok`) under a key named goal or goals, with the object it judged. */
export function findGoals(report: unknown): Found<boolean>[] {
  const out: Found<boolean>[] = [];
  walk(report, '', (path, key, value, parentKey) => {
    if (typeof value === 'boolean' && (key === 'met' || key === 'ok') && /goals?/i.test(parentKey)) out.push({ path: path.replace(/\.(met|ok)$/, ''), value });
    if (typeof value === 'boolean' && /^goalMet$|^withinGoal$/i.test(key)) out.push({ path, value });
  });
  return out;
}

const show = (x: number): string => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));

/** The lines printed after a benchmark ran. */
export function summaryLines(name: string, report: Record<string, unknown>, loadAverage: { start: number; end: number }): string[] {
  const lines = [`${name}: done (load average ${loadAverage.start.toFixed(2)} at the start, ${loadAverage.end.toFixed(2)} at the end)`];
  for (const goal of findGoals(report)) lines.push(`  goal ${goal.path}: ${goal.value ? 'met' : 'NOT met'}`);
  const ratios = findRatios(report);
  for (const r of ratios.slice(0, MAX_RATIOS)) lines.push(`  ratio ${r.path}: ${show(r.value)}`);
  if (ratios.length > MAX_RATIOS) lines.push(`  (${ratios.length - MAX_RATIOS} more ratios in the file)`);
  const headlines = headlineMetrics({ reports: { [name]: report } }).filter((m) => !/ratio/i.test(m.id));
  for (const m of headlines.slice(0, MAX_HEADLINES)) lines.push(`  ${m.label}: ${show(m.value)} (${m.better} is better)`);
  const rows = budgetRows(report);
  if (rows.length > 0) lines.push(budgetTable(name, rows));
  const parts = clientPartsRows(report);
  if (parts.length > 0) lines.push(clientPartsTable(name, parts));
  if (lines.length === 1) lines.push('  (this benchmark names no goal, ratio or headline figure: read the file)');
  return lines;
}

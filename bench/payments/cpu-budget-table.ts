/**
 * The CPU budget of a benchmark's paid calls as a table a person reads at the end of a run: one
 * row per measured run (scheme and concurrency), the service's CPU µs per call split main thread /
 * pool / other (and what "other" was), the share the idle service would have spent anyway, fsyncs
 * per call (channel runs) and write system calls per call, and the median of each
 * Server-Timing phase. The figures stay in the report's JSON (`cpuBudget`, `medianPhasesMs`).
 */
import type { CpuBudget } from '../harness/service-cpu.ts';

/** One measured run of a report. */
export interface BudgetRow {
  /** Where in the report it sits, e.g. `levels[0].channel`. */
  readonly path: string;
  readonly concurrency: number | null;
  readonly budget: CpuBudget;
  readonly phasesMs: Readonly<Record<string, number>>;
}

/** A row's name: `levels[2].channel` -> `channel`, the top of a report -> `paid call`. */
export const runName = (path: string): string => (path === '(top)' ? 'paid call' : path.replace(/^levels\[\d+\]\./, ''));

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object';

/** Every object of `report` with a `cpuBudget`, depth first, with the nearest concurrency above it. */
export function budgetRows(report: unknown, path = '', concurrency: number | null = null): BudgetRow[] {
  if (Array.isArray(report)) return report.flatMap((x, i) => budgetRows(x, `${path}[${i}]`, concurrency));
  if (!isObject(report)) return [];
  const here = typeof report.concurrency === 'number' ? report.concurrency : concurrency;
  const rows: BudgetRow[] = [];
  if (isObject(report.cpuBudget))
    rows.push({
      path: path || '(top)',
      concurrency: here,
      budget: report.cpuBudget as unknown as CpuBudget,
      phasesMs: isObject(report.medianPhasesMs) ? (report.medianPhasesMs as Record<string, number>) : {},
    });
  for (const [key, value] of Object.entries(report))
    if (key !== 'cpuBudget' && isObject(value)) rows.push(...budgetRows(value, path ? `${path}.${key}` : key, here));
  return rows;
}

const num = (x: number | null | undefined, digits = 0): string => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits));

/** A row's cells: what, in flight, calls, µs per call (total, main, pool, other and its parts, the idle share), fsyncs and writes per call. */
function cells(row: BudgetRow): string[] {
  const { usPerCall: u, otherUsPerCall: o } = row.budget;
  const parts = `${num(o.libuv)}/${num(o.platform)}/${num(o.native)}${o.unclassified > 0 ? ` +${num(o.unclassified)}?` : ''}`;
  const what = runName(row.path);
  return [
    what,
    num(row.concurrency),
    num(row.budget.calls),
    num(u.total),
    num(u.main),
    num(u.pool),
    num(u.other),
    parts,
    num(row.budget.backgroundUsPerCall?.total),
    num(row.budget.durableSyncsPerCall, 2),
    num(row.budget.writeSyscallsPerCall, 2),
  ];
}

/** The median phases of a row in one line: `verify 0.41 handler 0.05 ...` (ms). */
const phasesLine = (phases: Readonly<Record<string, number>>): string =>
  Object.entries(phases)
    .map(([name, ms]) => `${name} ${ms}`)
    .join('  ');

const HEADER = ['run', 'in flight', 'calls', 'µs/call', 'main', 'pool', 'other', 'libuv/v8/native', 'of it idle', 'durable/call', 'writes/call'];

/** The table of `rows`, columns aligned, each row followed by its median phases (ms). */
export function budgetTable(title: string, rows: readonly BudgetRow[]): string {
  if (rows.length === 0) return `${title}: no CPU budget measured`;
  const body = rows.map(cells);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [
    `${title}: service CPU per paid call, µs (other = libuv threadpool / V8 platform / native threads; of it idle = what the idle service spends over as long)`,
    line(HEADER),
  ];
  rows.forEach((row, i) => {
    out.push(line(body[i]!));
    const phases = phasesLine(row.phasesMs);
    if (phases) out.push(`${' '.repeat(widths[0]!)}  phases p50 ms: ${phases}`);
  });
  return out.join('\n');
}

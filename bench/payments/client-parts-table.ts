/**
 * An official client's call part by part, as a table a person reads at the end of a run: one row per
 * measured run whose report has the client's marks (`clientMs`, client-marks.ts), with the call's
 * p50 and the medians of its 402 round trip, the client's building and signing, the paid request,
 * of that the service's `Server-Timing` total and the rest, what followed the paid answer, and the
 * clients' own CPU per call where the run read it.
 */
import { runName } from './cpu-budget-table.ts';

/** One run with the client's marks. */
export interface ClientPartsRow {
  readonly path: string;
  readonly concurrency: number | null;
  readonly p50Ms: number | null;
  readonly parts: Readonly<Record<string, number>>;
  /** The clients' CPU per call, µs (`clientCpuUsPerCall`), where read. */
  readonly clientCpuUs: number | null;
  /** Of it, what the clients' process spends idle over as long (`clientIdleUsPerCall`: the localnet beside the clients). */
  readonly clientIdleUs: number | null;
}

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object';
const numberOr = (x: unknown): number | null => (typeof x === 'number' ? x : null);

/** Every object of `report` with a `clientMs`, depth first, with the nearest concurrency above it. */
export function clientPartsRows(report: unknown, path = '', concurrency: number | null = null): ClientPartsRow[] {
  if (Array.isArray(report)) return report.flatMap((x, i) => clientPartsRows(x, `${path}[${i}]`, concurrency));
  if (!isObject(report)) return [];
  const here = typeof report.concurrency === 'number' ? report.concurrency : concurrency;
  const rows: ClientPartsRow[] = [];
  if (isObject(report.clientMs))
    rows.push({
      path: path || '(top)',
      concurrency: here,
      p50Ms: numberOr(report.p50Ms),
      parts: report.clientMs as Record<string, number>,
      clientCpuUs: numberOr(report.clientCpuUsPerCall),
      clientIdleUs: numberOr(report.clientIdleUsPerCall),
    });
  for (const [key, value] of Object.entries(report))
    if (key !== 'clientMs' && isObject(value)) rows.push(...clientPartsRows(value, path ? `${path}.${key}` : key, here));
  return rows;
}

const num = (x: number | null | undefined): string => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(2));
/** Columns after the run's name and concurrency: [header, clientMs key (or the row's p50)]. */
const COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['call p50', 'p50'],
  ['402', 'challenge'],
  ['build+sign', 'buildAndSign'],
  ['paid', 'paidRequest'],
  ['of it service', 'paidRequestService'],
  ['paid less service', 'paidRequestLessService'],
  ['after paid', 'afterPaid'],
];
const HEADER = ['run', 'in flight', ...COLUMNS.map(([h]) => h), 'client CPU µs', 'of it idle'];
const micros = (x: number | null): string => (x === null || !Number.isFinite(x) ? '-' : x.toFixed(0));

/** The table of `rows`, columns aligned. */
export function clientPartsTable(title: string, rows: readonly ClientPartsRow[]): string {
  const body = rows.map((row) => [
    runName(row.path),
    row.concurrency === null ? '-' : String(row.concurrency),
    ...COLUMNS.map(([, key]) => num(key === 'p50' ? row.p50Ms : row.parts[key])),
    micros(row.clientCpuUs),
    micros(row.clientIdleUs),
  ]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [
    `${title}: the official client's call as it sees it, ms (medians; 402 = the unpaid request's round trip, paid = the paid request, of it the service's Server-Timing total; client CPU = the clients' process per call, of it idle = what that process, which runs the localnet, spends idle over as long)`,
    line(HEADER),
    ...body.map(line),
  ].join('\n');
}

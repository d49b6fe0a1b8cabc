/**
 * The payment channels' section of the suite's report, from the `channel-calls` and `sweep`
 * reports of a results file (their headline metrics are in suite-metrics.ts with the others), and
 * the CPU budget of a paid call as the benchmarks print it.
 */
import { budgetRows, budgetTable } from '../payments/cpu-budget-table.ts';
import { clientPartsRows, clientPartsTable } from '../payments/client-parts-table.ts';
import { numberAt } from './suite-metrics.ts';
import { fmt, table } from './suite-report-sections.ts';

const levels = (cc: unknown): unknown[] => {
  const at = (cc as { levels?: unknown } | null)?.levels;
  return Array.isArray(at) ? at : [];
};
const SCHEMES = [
  ['channel', 'channel'],
  ['exactBase', '`exact` Base'],
  ['exactSolana', '`exact` Solana'],
  // The batch route is above the early-answer ceiling: this row still waits for confirmation.
  ['exactSolanaEarly', '`exact` Solana, early answers on (route above the ceiling)'],
] as const;

/** Channel calls per concurrency beside exact, and the sweep per scheme. */
export function channelSection(reports: Record<string, unknown>): string {
  const cc = reports['channel-calls'];
  const sweep = reports.sweep;
  if (levels(cc).length === 0 && numberAt(sweep, 'channel', 'mintsPerSecond') === null)
    return '## Payment channels\n\nNo `channel-calls` or `sweep` figures in this run (see the steps above).';
  const callRows = levels(cc).map((l) => [
    fmt(numberAt(l, 'concurrency')),
    `${fmt(numberAt(l, 'channel', 'perSecond'))} (p50 ${fmt(numberAt(l, 'channel', 'p50Ms'))} ms)`,
    fmt(numberAt(l, 'officialClient', 'perSecond')),
    fmt(numberAt(l, 'exactBase', 'perSecond')),
    fmt(numberAt(l, 'exactSolana', 'perSecond')),
    `${fmt(numberAt(l, 'ratios', 'channelVsExactBase'))}x`,
  ]);
  const sweepRows = SCHEMES.map(([key, name]) => [
    name,
    fmt(numberAt(sweep, key, 'mintsPerSecond')),
    fmt(numberAt(sweep, key, 'callP50Ms')),
    fmt(numberAt(sweep, key, 'rpcRequestsPerCall')),
  ]);
  return [
    '## Payment channels',
    'Paid calls on `/v1/epoch` per concurrency (`channel-calls`): a channel per client with vouchers signed ahead, the official client end to end, and `exact` in the same run.',
    table(['clients', 'channel calls/s', 'official client calls/s', '`exact` Base calls/s', '`exact` Solana calls/s', 'channel / `exact` Base'], callRows),
    'A sweep of 1000 mints through `/v1/batch/token-risk`, 10 a call, 8 clients, 25 ms added to every RPC request (`sweep`):',
    table(['paid with', 'mints/s', 'call p50 ms', 'RPC requests per call'], sweepRows),
  ].join('\n\n');
}

/** The CPU budget of a paid call per benchmark that measures it, as the benchmark prints it. */
export function budgetSection(reports: Record<string, unknown>): string {
  const tables = ['channel-calls', 'svm-early', 'paid-call-cpu']
    .map((name) => ({ name, rows: budgetRows(reports[name]) }))
    .filter((t) => t.rows.length > 0)
    .map((t) => `\`\`\`text\n${budgetTable(t.name, t.rows)}\n\`\`\``);
  if (tables.length === 0) return '';
  const clients = ['channel-calls', 'svm-early']
    .map((name) => ({ name, rows: clientPartsRows(reports[name]) }))
    .filter((t) => t.rows.length > 0)
    .map((t) => `\`\`\`text\n${clientPartsTable(t.name, t.rows)}\n\`\`\``);
  return [
    '## CPU budget of a paid call',
    "The service's CPU µs per paid call by the kind of thread that spent it, write system calls per call, and each Server-Timing phase's median in ms (docs/benchmarks.md#the-cpu-budget-of-a-paid-call).",
    ...tables,
    ...(clients.length > 0 ? ["The official clients' calls part by part, as the clients saw them (docs/benchmarks.md, `channel-calls`):", ...clients] : []),
  ].join('\n\n');
}

/**
 * The CPU budget of a paid call as headline figures of a suite run: for each benchmark that
 * measures one (channel-calls, svm-early, paid-call-cpu), the service's CPU µs per call in all and
 * on the main thread, the pool and the other threads, per run and concurrency. Lower is better.
 */
import { budgetRows, runName } from '../payments/cpu-budget-table.ts';
import type { Metric } from './metric.ts';

const BUDGET_BENCHES = ['channel-calls', 'svm-early', 'paid-call-cpu'] as const;
const PARTS = ['total', 'main', 'pool', 'other'] as const;

/** The budget figures of a run's reports. */
export function budgetMetrics(reports: Readonly<Record<string, unknown>>): Metric[] {
  return BUDGET_BENCHES.flatMap((bench) =>
    budgetRows(reports[bench]).flatMap((row) => {
      const run = runName(row.path);
      const at = row.concurrency === null ? '' : `, ${row.concurrency} in flight`;
      return PARTS.map((part) => ({
        id: `budget.${bench}.${run}.c${row.concurrency ?? '-'}.${part}`,
        label: `${bench} ${run}${at}: service CPU µs per call, ${part === 'total' ? 'all threads' : part}`,
        better: 'lower' as const,
        value: row.budget.usPerCall[part],
      })).filter((m) => Number.isFinite(m.value));
    }),
  );
}

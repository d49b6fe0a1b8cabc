/** A run's headline figure, as the suite compares it from run to run (suite-metrics.ts, budget-metrics.ts). */

export type Better = 'higher' | 'lower';

/** One headline figure of a run. */
export interface Metric {
  readonly id: string;
  readonly label: string;
  readonly better: Better;
  readonly value: number;
}

/**
 * Nearest-rank percentiles over plain numbers: the value at rank ceil(p/100 * n) of the sorted
 * sample, so every figure is a value some landed transaction actually paid (never interpolated).
 * Pure; the pool task `timingPercentiles` runs the same function for large windows.
 */

/** Input of the `timingPercentiles` pool task. */
export interface PercentilesInput {
  readonly values: Float64Array;
  /** Percentiles in (0, 100], e.g. [50, 75, 90, 99]. */
  readonly percentiles: readonly number[];
}

/** One integer per requested percentile (null for an empty sample). */
export type PercentilesOutput = (number | null)[];

/** The nearest-rank index of percentile `p` in a sorted sample of `n` values. */
export function nearestRankIndex(p: number, n: number): number {
  return Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
}

/** Sorts a copy of `values` and reads each percentile by nearest rank. */
export function computePercentiles(input: PercentilesInput): PercentilesOutput {
  const n = input.values.length;
  if (n === 0) return input.percentiles.map(() => null);
  // Float64Array sorts numerically in native code (no comparator): fast even for 10^6 values.
  const sorted = Float64Array.from(input.values).sort();
  return input.percentiles.map((p) => Math.round(sorted[nearestRankIndex(p, n)]!));
}

/** Exponential moving average step; `previous` null starts the series at `value`. */
export function emaStep(previous: number | null, value: number, alpha: number): number {
  return previous === null ? value : alpha * value + (1 - alpha) * previous;
}

/** The smoothing factor of an EMA spanning `n` observations (the usual 2 / (n + 1)). */
export function emaAlpha(n: number): number {
  return 2 / (n + 1);
}

/** The service's `Server-Timing` answers, summarized: each phase's median over a run's calls. */

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** Median ms of each Server-Timing phase over the answers (two decimals). */
export function medianPhases(values: readonly string[]): Record<string, number> {
  const byPhase: Record<string, number[]> = {};
  for (const value of values)
    for (const part of value.split(',')) {
      const [name, dur] = part.trim().split(';dur=');
      if (!name || dur === undefined) continue;
      const list = byPhase[name] ?? [];
      list.push(Number(dur));
      byPhase[name] = list;
    }
  return Object.fromEntries(Object.entries(byPhase).map(([name, xs]) => [name, Number(median(xs).toFixed(2))]));
}

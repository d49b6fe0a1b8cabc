/**
 * Issue 40's goals for a paid channel call, read from one `channel-calls` run: the client's p50 at
 * 1 in flight, calls/s and the service's CPU per call at 32 in flight, the peak against `exact`
 * Base, and the official client end to end. The suite's report lists each `met` (run-summary.ts).
 */

/** What the goals read of a level. */
export interface ChannelLevelFigures {
  readonly concurrency: number;
  readonly channel: {
    readonly p50Ms: number;
    readonly perSecond: number;
    readonly cpuBudget: { readonly usPerCall: { readonly total: number; readonly main: number } };
  };
  readonly officialClient: { readonly p50Ms: number };
}

/** Issue 40's goals for the channel, read from the run (the service's CPU ones from the level at 32 in flight). */
export function channelGoalsOf(levels: readonly ChannelLevelFigures[], peak: { readonly ratio: number }) {
  const at = (c: number) => levels.find((l) => l.concurrency === c)!;
  const c1 = at(1);
  const c32 = at(32);
  const budget = c32.channel.cpuBudget.usPerCall;
  return {
    channelP50MsAt1: 1.5,
    channelPerSecondAt32: 2_000,
    channelVsExactBaseAtPeak: 60,
    serviceCpuUsPerCallAt32: { total: 1_000, main: 400 },
    officialClientP50MsAt1: 8,
    met: {
      p50At1: c1.channel.p50Ms <= 1.5,
      perSecondAt32: c32.channel.perSecond >= 2_000,
      vsExactBaseAtPeak: peak.ratio >= 60,
      cpuTotalAt32: budget.total <= 1_000,
      cpuMainAt32: budget.main <= 400,
      officialP50At1: c1.officialClient.p50Ms <= 8,
    },
  };
}

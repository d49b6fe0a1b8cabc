/**
 * The timing group: `/v1/tipfloor`, `/v1/priority-fee`, `/v1/epoch` and `/v1/sgp-checkpoint`,
 * answered from the live caches the Geyser stream keeps warm (RPC fallback while it is down). The
 * service opens those caches before any group and closes their stream after; this group only
 * reads them. It also lends pretrade the suggested priority-fee bands.
 */
import type { FeeBands, HandlerDeps, HandlerGroup } from '../handler-group.ts';
import { createTimingRuntime, type TimingPath } from './timing-runtime.ts';

/** The timing handlers plus the fee bands other groups report. */
export interface TimingGroup extends HandlerGroup<TimingPath> {
  feeBands(signal: AbortSignal): Promise<FeeBands>;
}

/** Builds the timing group over the service's live caches. */
export function createTimingGroup(deps: HandlerDeps): TimingGroup {
  const runtime = createTimingRuntime({ live: deps.live, rpc: deps.rpc, pool: deps.pool });
  return {
    handlers: runtime.handlers,
    async close() {
      runtime.close();
    },
    feeBands: (signal) => runtime.feeBands(signal),
  };
}

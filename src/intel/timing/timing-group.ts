/**
 * The timing group: `/v1/tipfloor`, `/v1/priority-fee`, `/v1/epoch` and `/v1/sgp-checkpoint`,
 * answered from the live caches the Geyser stream keeps warm (RPC fallback while it is down). The
 * service opens those caches (after checking every group's handlers against the catalog) and hands
 * them to `start`; this group only reads them. It also lends pretrade the suggested priority-fee
 * bands.
 */
import { ServiceError } from '../../errors.ts';
import type { FeeBands, HandlerDeps, HandlerGroup } from '../handler-group.ts';
import { createTimingRuntime, TIMING_PATHS, type TimingHandlers, type TimingPath, type TimingRuntime } from './timing-runtime.ts';

/** The timing handlers plus the fee bands other groups report. */
export interface TimingGroup extends HandlerGroup<TimingPath> {
  feeBands(signal: AbortSignal): Promise<FeeBands>;
}

/** Each timing path's handler, calling the running runtime's handler of that path. */
function forwardedTo(running: () => TimingRuntime): TimingHandlers {
  const forward = (path: TimingPath) => [path, (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => running().handlers[path](query, signal)];
  return Object.fromEntries(TIMING_PATHS.map(forward)) as TimingHandlers;
}

/** Builds the timing group; its runtime is built over the live caches in `start()`. */
export function createTimingGroup(deps: HandlerDeps): TimingGroup {
  let runtime: TimingRuntime | null = null;
  const running = (): TimingRuntime => {
    if (runtime === null) throw new ServiceError('upstream_unavailable', 'the timing caches are not running yet');
    return runtime;
  };
  return {
    // Until start (and after close) each path answers 502.
    handlers: forwardedTo(running),
    async start({ live }) {
      runtime = createTimingRuntime({ live, rpc: deps.rpc, pool: deps.pool });
    },
    close() {
      runtime?.close();
      runtime = null;
    },
    feeBands: (signal) => running().feeBands(signal),
  };
}

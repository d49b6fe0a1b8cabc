/**
 * The timing group: `/v1/epoch` (and, with the Geyser caches, tip floor, priority fee and
 * sgp-checkpoint). It also lends pretrade the suggested priority-fee bands.
 */
import { ServiceError } from '../../errors.ts';
import type { FeeBands, HandlerDeps, HandlerGroup } from '../handler-group.ts';
import { createEpochHandler } from './epoch.ts';
import { createSlotSampler } from './slot-rate.ts';

/** The timing handlers plus the fee bands other groups report. */
export interface TimingGroup extends HandlerGroup {
  feeBands(signal: AbortSignal): Promise<FeeBands>;
}

/** Builds the timing group over the RPC client. */
export function createTimingGroup(deps: HandlerDeps): TimingGroup {
  const sampler = createSlotSampler({ rpc: deps.rpc });
  return {
    handlers: { '/v1/epoch': createEpochHandler({ rpc: deps.rpc, sampler }) },
    start: () => sampler.start(),
    close: () => sampler.close(),
    async feeBands() {
      throw new ServiceError('upstream_unavailable', 'the priority-fee source is not running in this deployment');
    },
  };
}

/**
 * `/v1/epoch`: epoch position from the RPC's getEpochInfo and the seconds to epoch end from a
 * measured slot rate (never an assumed 400 ms). `rate` picks the rate(s) reported; the ETA uses
 * `alt` when only `alt` is asked for, else `primary`. Issue 7 moves the source to the Geyser cache.
 */
import type { RpcClient } from '../../chain/rpc-client.ts';
import { ServiceError } from '../../errors.ts';
import type { PaidHandler } from '../../http/paid-routes.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { measureSlotRate, MIN_RATE_SPAN_MS, PRIMARY_WINDOW_MS, type SlotSampler } from './slot-rate.ts';

export interface EpochHandlerConfig {
  readonly rpc: Pick<RpcClient, 'getEpochInfo'>;
  readonly sampler: SlotSampler;
}

/** Builds the handler over the RPC client and the slot sampler. */
export function createEpochHandler(config: EpochHandlerConfig): PaidHandler {
  return async (query, signal) => {
    const which = (query.rate as 'primary' | 'alt' | 'both' | undefined) ?? 'both';
    let info = await config.rpc.getEpochInfo(signal);
    config.sampler.record(info);
    const first = config.sampler.samples()[0];
    const waitMs = first ? MIN_RATE_SPAN_MS - (Date.now() - first.atMs) : 0;
    if (waitMs > 0) {
      // Only in the service's first second: wait for the span a rate needs rather than guess one.
      await sleep(waitMs + 50, undefined, { signal });
      info = await config.rpc.getEpochInfo(signal);
      config.sampler.record(info);
    }
    const samples = config.sampler.samples();
    const primary = measureSlotRate(samples, PRIMARY_WINDOW_MS, `recent ${PRIMARY_WINDOW_MS / 1000} s window`);
    const alt = measureSlotRate(samples, Number.POSITIVE_INFINITY, 'all retained samples (up to 15 min)');
    const driving = which === 'alt' ? alt : primary;
    if (!driving) throw new ServiceError('upstream_unavailable', 'the slot rate is not measured yet (needs two samples at least a second apart); retry shortly');
    const slotsLeft = info.slotsInEpoch - info.slotIndex;
    const slotRates: Record<string, unknown> = {};
    if (which !== 'alt') slotRates.primary = primary;
    if (which !== 'primary') slotRates.alt = alt ?? 'unknown';
    return {
      epoch: info.epoch,
      slotIndex: info.slotIndex,
      slotsInEpoch: info.slotsInEpoch,
      absoluteSlot: info.absoluteSlot,
      etaSecondsToEnd: Math.round((slotsLeft * driving.slotMs) / 1000),
      etaRate: which === 'alt' ? 'alt' : 'primary',
      slotRates,
      source: 'rpc',
      measuredAtUtc: new Date().toISOString(),
    };
  };
}

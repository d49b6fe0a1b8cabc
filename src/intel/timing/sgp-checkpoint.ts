/**
 * `/v1/sgp-checkpoint`: the series of (epoch, slot index, time) checkpoints the stream records
 * (one every 25 slots and one at each epoch start), the latest position, the measured slot
 * duration over the retained baseline and the ISO time the current epoch is expected to end, and
 * the last epoch transition seen. While the stream is not live the latest position comes from
 * getEpochInfo (`rpc-fallback`); the series stays what the stream recorded.
 */
import type { EpochPosition } from '../../caches/epoch-schedule.ts';
import { roundTo } from '../../caches/slot-clock-cache.ts';
import { ServiceError } from '../../errors.ts';
import { rpcEpoch, streamRates } from './epoch.ts';
import type { TimingSource } from './timing-source.ts';

/** Builds the handler over the timing source. */
export function createSgpCheckpointHandler(source: TimingSource, config: { readonly checkpointEverySlots: number }) {
  return async (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => {
    const n = (query.n as number | undefined) ?? 20;
    source.settle();
    const clock = source.caches.clock;
    let position: EpochPosition | null = clock.position();
    let observedAtMs = clock.head()?.atMs ?? null;
    let baseline: { readonly label: string; readonly slotMs: number; readonly spanSeconds: number; readonly slots: number } | null = streamRates(source).alt;
    let answerSource: 'geyser' | 'rpc-fallback' = 'geyser';
    if (!source.live() || position === null || baseline === null) {
      const rpc = await rpcEpoch(source, signal);
      position = rpc.info;
      observedAtMs = rpc.atMs;
      answerSource = 'rpc-fallback';
      // A stream baseline measured before the outage is still a measurement; else the sampler's.
      if (baseline === null) baseline = rpc.alt;
    }
    if (baseline === null) throw new ServiceError('upstream_unavailable', 'the slot duration is not measured yet; retry shortly');
    const slotsLeft = position.slotsInEpoch - position.slotIndex;
    const points = clock.points();
    const transitions = clock.transitions();
    const last = transitions[transitions.length - 1];
    return {
      latest: {
        epoch: position.epoch,
        slotIndex: position.slotIndex,
        slotsInEpoch: position.slotsInEpoch,
        progressPct: roundTo((position.slotIndex / position.slotsInEpoch) * 100, 3),
        absoluteSlot: position.absoluteSlot,
      },
      measured: {
        slotMs: baseline.slotMs,
        baselineSpanHours: roundTo(baseline.spanSeconds / 3600, 4),
        baselineSlots: baseline.slots,
        etaEpochEndIso: new Date((observedAtMs ?? Date.now()) + slotsLeft * baseline.slotMs).toISOString(),
        method: baseline.label,
      },
      series: {
        count: points.length,
        everySlots: config.checkpointEverySlots,
        alsoAt: 'the first slot seen in each epoch',
        recent: points.slice(-n).map((p) => ({ epoch: p.epoch, slotIndex: p.slotIndex, slot: p.absoluteSlot, time: p.time })),
        lastTransition: last ? { fromEpoch: last.fromEpoch, toEpoch: last.toEpoch, slot: last.slot, time: last.time } : null,
        transitionsSeen: transitions.length,
      },
      source: answerSource,
      freshness: source.freshness(position.absoluteSlot, observedAtMs),
    };
  };
}

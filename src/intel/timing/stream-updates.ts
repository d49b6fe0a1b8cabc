/**
 * The updates of the paid live streams (src/catalog/streams.ts), built from the timing caches as
 * each slot status arrives from the Geyser stream: never polled. A topic's update is built once,
 * as the text every subscriber gets, and only while the topic has subscribers; its work is that
 * one slot's items (a slot's tips, a slot's fee samples), never the window. A figure the slot
 * cannot give (no tip in it, an empty slot) is `unknown`.
 */
import { epochPosition } from '../../caches/epoch-schedule.ts';
import { computePercentiles } from '../../caches/percentiles.ts';
import type { TimingCaches } from '../../caches/timing-caches.ts';

/** Where updates go: `wanted` says whether a topic has subscribers; `publish` hands its text to all of them. */
export interface UpdateSink {
  wanted(topic: string): boolean;
  publish(topic: string, text: string): void;
}

type SlotStatus = 'processed' | 'confirmed';

/**
 * `{"type":"update","topic":…,"slot":…,"at":…,"data":…}`: `at` is when the stream delivered the slot
 * (ms since the epoch); `slot` is `unknown` for an update no slot is known for.
 */
export const updateText = (topic: string, slot: number | 'unknown', atMs: number, data: unknown): string =>
  `{"type":"update","topic":${JSON.stringify(topic)},"slot":${typeof slot === 'number' ? slot : '"unknown"'},"at":${atMs},"data":${JSON.stringify(data)}}`;

const orUnknown = (v: number | null | undefined): number | 'unknown' => (v === null || v === undefined ? 'unknown' : v);

function tipFloorData(caches: TimingCaches, slot: number) {
  const tips = caches.tips.window.completeBucket(slot)?.items ?? [];
  const [median] = tips.length > 0 ? computePercentiles({ values: Float64Array.from(tips), percentiles: [50] }) : [null];
  const ema = caches.tips.ema();
  return { unit: 'lamports', slotTips: tips.length, slotMedian: orUnknown(median), ema: orUnknown(ema.value), emaSlots: ema.slots };
}

function priorityFeeData(caches: TimingCaches, slot: number) {
  const samples = caches.fees.window.completeBucket(slot)?.items ?? [];
  const prices = new Float64Array(samples.length);
  let unpriced = 0;
  for (let i = 0; i < samples.length; i++) {
    prices[i] = samples[i]!.price;
    if (samples[i]!.price === 0) unpriced++;
  }
  const [p50, p75, p90] = samples.length > 0 ? computePercentiles({ values: prices, percentiles: [50, 75, 90] }) : [null, null, null];
  return { unit: 'micro-lamports per compute unit', transactions: samples.length, unpriced, p50: orUnknown(p50), p75: orUnknown(p75), p90: orUnknown(p90) };
}

function slotData(caches: TimingCaches, slot: number, status: SlotStatus) {
  const position = epochPosition(caches.schedule, slot);
  return { status, epoch: position.epoch, slotIndex: position.slotIndex, slotsInEpoch: position.slotsInEpoch };
}

/** Publishes every topic's updates from `caches` to `sink`; returns what stops it. */
export function publishStreamUpdates(caches: TimingCaches, sink: UpdateSink, fault: (err: unknown) => void): () => void {
  return caches.onSlot((slot, status, atMs) => {
    // A fault here must never reach the Geyser handler that feeds the paid endpoints.
    try {
      if (sink.wanted('slot')) sink.publish('slot', updateText('slot', slot, atMs, slotData(caches, slot, status)));
      if (status !== 'confirmed') return;
      if (sink.wanted('tipfloor')) sink.publish('tipfloor', updateText('tipfloor', slot, atMs, tipFloorData(caches, slot)));
      if (sink.wanted('priority-fee')) sink.publish('priority-fee', updateText('priority-fee', slot, atMs, priorityFeeData(caches, slot)));
    } catch (err) {
      fault(err);
    }
  });
}

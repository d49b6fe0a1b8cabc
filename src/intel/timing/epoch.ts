/**
 * `/v1/epoch`: epoch position derived from the streamed head slot and the cluster's epoch
 * schedule, and the seconds to epoch end from a measured slot rate (never an assumed 400 ms).
 * Two labelled rates: `primary` over the last 60 s of streamed slots, `alt` over the retained
 * baseline (up to 6 h). `rate` picks the rate(s) reported; the ETA uses `alt` when only `alt` is
 * asked for, else `primary`. While the stream is not live, getEpochInfo and an RPC slot sampler
 * answer instead, labelled `rpc-fallback`.
 */
import type { EpochInfo } from '../../chain/solana/rpc-client.ts';
import type { EpochPosition } from '../../caches/epoch-schedule.ts';
import { SHORT_RATE_WINDOW_MS, type MeasuredRate } from '../../caches/slot-clock-cache.ts';
import { ServiceError } from '../../errors.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { measureSlotRate, MIN_RATE_SPAN_MS, PRIMARY_WINDOW_MS, type SlotRate } from './slot-rate.ts';
import type { TimingSource } from './timing-source.ts';

type Which = 'primary' | 'alt' | 'both';
type Rate = MeasuredRate | SlotRate;
/** How long a request waits for a first measurable rate (only in the service's first seconds). */
const RATE_WAIT_MS = 2_000;
const RATE_POLL_MS = 100;

const PRIMARY_STREAM_LABEL = `stream: slot arrivals over the last ${SHORT_RATE_WINDOW_MS / 1000} s`;
const ALT_STREAM_LABEL = 'stream: slot arrivals over the retained baseline (up to 6 h)';
type StreamRates = { primary: MeasuredRate | null; alt: MeasuredRate | null };

/** The stream's two labelled rates. */
export function streamRates(source: TimingSource): StreamRates {
  return {
    primary: source.caches.clock.rate(SHORT_RATE_WINDOW_MS, PRIMARY_STREAM_LABEL),
    alt: source.caches.clock.rate(Number.POSITIVE_INFINITY, ALT_STREAM_LABEL),
  };
}

const measurable = (which: Which, rates: StreamRates): boolean => (which === 'alt' ? rates.alt : rates.primary) !== null;

function render(which: Which, position: EpochPosition, rates: { primary: Rate | null; alt: Rate | null }, extra: Record<string, unknown>) {
  const driving = which === 'alt' ? rates.alt : rates.primary;
  if (!driving)
    throw new ServiceError('upstream_unavailable', 'the slot rate is not measured yet (needs slots observed at least a second apart); retry shortly');
  const slotRates: Record<string, unknown> = {};
  if (which !== 'alt') slotRates.primary = rates.primary;
  if (which !== 'primary') slotRates.alt = rates.alt ?? 'unknown';
  return {
    epoch: position.epoch,
    slotIndex: position.slotIndex,
    slotsInEpoch: position.slotsInEpoch,
    absoluteSlot: position.absoluteSlot,
    etaSecondsToEnd: Math.round(((position.slotsInEpoch - position.slotIndex) * driving.slotMs) / 1000),
    etaRate: which === 'alt' ? 'alt' : 'primary',
    slotRates,
    ...extra,
  };
}

/** The RPC path: getEpochInfo plus the sampler's rates (the pre-stream method). */
export async function rpcEpoch(source: TimingSource, signal: AbortSignal): Promise<{ info: EpochInfo; primary: Rate | null; alt: Rate | null; atMs: number }> {
  const sampler = source.fallbackSampler();
  let info = await source.rpc.getEpochInfo(signal);
  sampler.record(info);
  const first = sampler.samples()[0];
  const waitMs = first ? MIN_RATE_SPAN_MS - (Date.now() - first.atMs) : 0;
  if (waitMs > 0) {
    await sleep(waitMs + 50, undefined, { signal });
    info = await source.rpc.getEpochInfo(signal);
    sampler.record(info);
  }
  const samples = sampler.samples();
  // Until the sampler has seen the slot move, the rates the stream measured before it stopped are
  // the latest measurement there is: used, and labelled as such.
  const before = streamRates(source);
  const head = source.caches.clock.head();
  const until = head ? ` until ${new Date(head.atMs).toISOString()} (before the stream stopped)` : '';
  const relabel = (r: MeasuredRate | null): MeasuredRate | null => (r ? { ...r, label: `${r.label}${until}` } : null);
  return {
    info,
    primary: measureSlotRate(samples, PRIMARY_WINDOW_MS, `rpc: getEpochInfo samples over the last ${PRIMARY_WINDOW_MS / 1000} s`) ?? relabel(before.primary),
    alt: measureSlotRate(samples, Number.POSITIVE_INFINITY, 'rpc: all retained getEpochInfo samples (up to 15 min)') ?? relabel(before.alt),
    atMs: Date.now(),
  };
}

/** Waits briefly for the stream's first measurable rate; false when it does not come. */
async function streamRateReady(source: TimingSource, which: Which, signal: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + RATE_WAIT_MS;
  for (;;) {
    if (measurable(which, streamRates(source))) return true;
    if (Date.now() >= deadline || !source.live()) return false;
    await sleep(RATE_POLL_MS, undefined, { signal });
  }
}

/** Builds the handler over the timing source. */
export function createEpochHandler(source: TimingSource) {
  return async (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => {
    const which = (query.rate as Which | undefined) ?? 'both';
    source.settle();
    const position = source.caches.clock.position();
    // Read once per call, in the same turn as the head and position they are rendered with; read
    // again only after waiting for a first measurable rate (the service's first seconds).
    let rates = source.live() && position !== null ? streamRates(source) : null;
    if (rates && !measurable(which, rates)) rates = (await streamRateReady(source, which, signal)) ? streamRates(source) : null;
    if (rates) {
      const head = source.caches.clock.head()!;
      const now = source.caches.clock.position()!;
      return render(which, now, rates, {
        source: 'geyser',
        freshness: source.freshness(head.slot, head.atMs),
        measuredAtUtc: new Date().toISOString(),
      });
    }
    const rpc = await rpcEpoch(source, signal);
    return render(which, rpc.info, rpc, {
      source: 'rpc-fallback',
      freshness: source.freshness(rpc.info.absoluteSlot, rpc.atMs),
      measuredAtUtc: new Date(rpc.atMs).toISOString(),
    });
  };
}

/**
 * Where the chain is and how fast it moves, from the stream's slot updates: the head slot and
 * when it arrived, a bounded ring of (time, slot) samples (at most one per second, six hours) for
 * two measured rates, and the sgp checkpoint series of (epoch, slot index, time) points with the
 * epoch transitions seen. Work per slot is constant; rate queries are a binary search.
 */
import { epochPosition, type EpochPosition, type EpochSchedule } from './epoch-schedule.ts';

/** Samples are at least this far apart. */
export const SLOT_SAMPLE_SPACING_MS = 1_000;
/** Ring capacity: six hours at one sample per second. */
export const SLOT_SAMPLE_CAPACITY = 21_600;
/** The short (primary) rate window. */
export const SHORT_RATE_WINDOW_MS = 60_000;
/** Shortest span a rate is measured over. */
export const MIN_RATE_SPAN_MS = 800;
/** A checkpoint point every this many slots (about 10 s on mainnet), plus one at each epoch start. */
export const CHECKPOINT_EVERY_SLOTS = 25;
/** Checkpoint points kept. */
export const CHECKPOINT_MAX_POINTS = 1_000;
/** Epoch transitions kept. */
export const MAX_TRANSITIONS = 16;

export interface SlotSample {
  readonly atMs: number;
  readonly slot: number;
}

/** A slot rate measured between two samples, labelled with how it was measured. */
export interface SlotRateFigures {
  readonly label: string;
  readonly slotMs: number;
  readonly slotsPerSecond: number;
  readonly spanSeconds: number;
  readonly slots: number;
}

export interface MeasuredRate extends SlotRateFigures {
  readonly fromSlot: number;
  readonly toSlot: number;
}

/** Rounds to `digits` decimals. */
export const roundTo = (v: number, digits: number): number => Math.round(v * 10 ** digits) / 10 ** digits;

/**
 * The rate from `oldest` to `newest`; null when they are under MIN_RATE_SPAN_MS apart or show no
 * progress (nothing is assumed).
 */
export function rateBetween(oldest: SlotSample, newest: SlotSample, label: string): SlotRateFigures | null {
  const spanMs = newest.atMs - oldest.atMs;
  const slots = newest.slot - oldest.slot;
  if (spanMs < MIN_RATE_SPAN_MS || slots <= 0) return null;
  const slotMs = spanMs / slots;
  return { label, slotMs: roundTo(slotMs, 1), slotsPerSecond: roundTo(1000 / slotMs, 3), spanSeconds: roundTo(spanMs / 1000, 1), slots };
}

export interface CheckpointPoint extends EpochPosition {
  readonly atMs: number;
  readonly time: string;
}
export interface EpochTransition {
  readonly fromEpoch: number;
  readonly toEpoch: number;
  readonly slot: number;
  readonly time: string;
}

export interface SlotClockCache {
  /** Records the arrival of a (processed) slot. */
  observe(slot: number, atMs?: number): void;
  head(): { readonly slot: number; readonly atMs: number } | null;
  position(): EpochPosition | null;
  /** Rate over the samples inside `windowMs` of the newest; null when unmeasurable. */
  rate(windowMs: number, label: string): MeasuredRate | null;
  points(): readonly CheckpointPoint[];
  transitions(): readonly EpochTransition[];
  readonly sampleCount: number;
}

/** Creates the cache over a known epoch schedule. */
export function createSlotClockCache(config: {
  readonly schedule: EpochSchedule;
  readonly capacity?: number;
  readonly checkpointEverySlots?: number;
  readonly spacingMs?: number;
}): SlotClockCache {
  const capacity = config.capacity ?? SLOT_SAMPLE_CAPACITY;
  const every = config.checkpointEverySlots ?? CHECKPOINT_EVERY_SLOTS;
  const spacing = config.spacingMs ?? SLOT_SAMPLE_SPACING_MS;
  const ring: SlotSample[] = new Array<SlotSample>(capacity);
  let start = 0;
  let count = 0;
  let head: SlotSample | null = null;
  let lastPosition: EpochPosition | null = null;
  const points: CheckpointPoint[] = [];
  const transitions: EpochTransition[] = [];
  const at = (i: number): SlotSample => ring[(start + i) % capacity]!;
  // The rates change only when a slot arrives (a few times a second) and every paid /v1/epoch
  // reads two: measured once per head, by window, and handed out as they are (nobody mutates them).
  const rates = new Map<number, { readonly label: string; readonly rate: MeasuredRate | null }>();

  const push = (sample: SlotSample): void => {
    if (count < capacity) ring[(start + count++) % capacity] = sample;
    else {
      ring[start] = sample;
      start = (start + 1) % capacity;
    }
  };

  const checkpoint = (position: EpochPosition, atMs: number): void => {
    points.push({ ...position, atMs, time: new Date(atMs).toISOString() });
    if (points.length > CHECKPOINT_MAX_POINTS) points.splice(0, points.length - CHECKPOINT_MAX_POINTS);
  };

  function observe(slot: number, atMs = Date.now()): void {
    // Slots never run backwards here: a late or repeated update changes nothing.
    if (head !== null && slot <= head.slot) return;
    const previous = lastPosition;
    const position = epochPosition(config.schedule, slot);
    head = { slot, atMs };
    lastPosition = position;
    rates.clear();
    const last = count > 0 ? at(count - 1) : null;
    if (last === null || atMs - last.atMs >= spacing) push(head);
    if (previous !== null && position.epoch > previous.epoch) {
      transitions.push({ fromEpoch: previous.epoch, toEpoch: position.epoch, slot, time: new Date(atMs).toISOString() });
      if (transitions.length > MAX_TRANSITIONS) transitions.shift();
      checkpoint(position, atMs);
    } else if (previous === null || Math.floor(slot / every) > Math.floor(previous.absoluteSlot / every)) {
      checkpoint(position, atMs);
    }
  }

  /** Index of the first sample with atMs >= t (binary search over the ring). */
  function firstAtOrAfter(t: number): number {
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (at(mid).atMs < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  function measure(windowMs: number, label: string): MeasuredRate | null {
    if (head === null || count === 0) return null;
    const oldest = at(Number.isFinite(windowMs) ? Math.min(firstAtOrAfter(head.atMs - windowMs), count - 1) : 0);
    const figures = rateBetween(oldest, head, label);
    return figures && { ...figures, fromSlot: oldest.slot, toSlot: head.slot };
  }

  function rate(windowMs: number, label: string): MeasuredRate | null {
    const known = rates.get(windowMs);
    if (known !== undefined && known.label === label) return known.rate;
    const measured = measure(windowMs, label);
    rates.set(windowMs, { label, rate: measured });
    return measured;
  }

  return {
    observe,
    head: () => head,
    position: () => lastPosition,
    rate,
    points: () => points,
    transitions: () => transitions,
    get sampleCount() {
      return count;
    },
  };
}

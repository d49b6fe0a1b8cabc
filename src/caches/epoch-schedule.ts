/**
 * Epoch position from an absolute slot and the cluster's epoch schedule (fetched once with
 * getEpochSchedule), as Agave's EpochSchedule derives it: warm-up epochs double in length from
 * MINIMUM_SLOTS_PER_EPOCH until `firstNormalSlot`, then every epoch has `slotsPerEpoch` slots.
 */

/** Agave's MINIMUM_SLOTS_PER_EPOCH (the first warm-up epoch's length). */
export const MINIMUM_SLOTS_PER_EPOCH = 32;

export interface EpochSchedule {
  readonly slotsPerEpoch: number;
  readonly warmup: boolean;
  readonly firstNormalEpoch: number;
  readonly firstNormalSlot: number;
}

export interface EpochPosition {
  readonly epoch: number;
  readonly slotIndex: number;
  readonly slotsInEpoch: number;
  readonly absoluteSlot: number;
}

const log2 = (n: number): number => 31 - Math.clz32(n);

/** The epoch, index in it and its length for `slot`. */
export function epochPosition(schedule: EpochSchedule, slot: number): EpochPosition {
  if (schedule.warmup && slot < schedule.firstNormalSlot) {
    // Epoch e (e >= 0) of the warm-up covers [MIN * (2^e - 1), MIN * (2^(e+1) - 1)).
    const epoch = log2(Math.floor(slot / MINIMUM_SLOTS_PER_EPOCH) + 1);
    const slotsInEpoch = MINIMUM_SLOTS_PER_EPOCH * 2 ** epoch;
    const firstSlot = MINIMUM_SLOTS_PER_EPOCH * (2 ** epoch - 1);
    return { epoch, slotIndex: slot - firstSlot, slotsInEpoch, absoluteSlot: slot };
  }
  const normal = slot - schedule.firstNormalSlot;
  return {
    epoch: schedule.firstNormalEpoch + Math.floor(normal / schedule.slotsPerEpoch),
    slotIndex: normal % schedule.slotsPerEpoch,
    slotsInEpoch: schedule.slotsPerEpoch,
    absoluteSlot: slot,
  };
}

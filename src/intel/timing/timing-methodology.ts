/**
 * The published methodology of the timing endpoints (for `/trust/sir` and `/openapi.json`), built
 * from the constants the caches and handlers use so the document cannot drift from the behaviour.
 */
import { GEYSER_STALE_MS } from '../../chain/geyser/geyser-client.ts';
import {
  CHECKPOINT_EVERY_SLOTS,
  CHECKPOINT_MAX_POINTS,
  SHORT_RATE_WINDOW_MS,
  SLOT_SAMPLE_CAPACITY,
  SLOT_SAMPLE_SPACING_MS,
} from '../../caches/slot-clock-cache.ts';
import { PRIORITY_FEE_WINDOW_SLOTS } from '../../caches/priority-fee-cache.ts';
import { TIP_EMA_SLOTS, TIP_HISTORY_EVERY_SLOTS, TIP_HISTORY_MAX_POINTS, TIP_WINDOW_SLOTS } from '../../caches/tip-floor-cache.ts';
import { BAND_MAPPING, FEE_PERCENTILES, MAX_LAG_SLOTS } from './priority-fee.ts';
import { TIPFLOOR_CACHE_MS, TIPFLOOR_HISTORY_RETURNED } from './tipfloor.ts';

export const TIMING_METHODOLOGY = Object.freeze({
  methodologyVersion: 'timing.v1',
  source: `one Yellowstone gRPC subscription (slots, non-vote transactions at confirmed, blocks meta); a stream without a slot for ${GEYSER_STALE_MS} ms (configurable) is stale and re-opened; meanwhile answers come from the RPC and say source rpc-fallback`,
  priorityFee: {
    value:
      'compute-unit price (micro-lamports per CU, ComputeBudget SetComputeUnitPrice; 0 when unset) of every landed non-vote transaction, failed ones included',
    window: `last ${PRIORITY_FEE_WINDOW_SLOTS} confirmed slots seen in full`,
    percentiles: FEE_PERCENTILES.map((p) => `p${p}`),
    method: 'nearest rank',
    suggestedBands: BAND_MAPPING,
    accounts: 'narrows to transactions write-locking any of the accounts (index kept as the stream arrives)',
    maxLagSlots: MAX_LAG_SLOTS,
    fallback: 'getRecentPrioritizationFees (per-slot minimums)',
    note: 'observed history, not a prediction',
  },
  tipFloor: {
    value: 'lamports each successful landed transaction paid to the 8 Jito tip accounts (top-level and inner system transfers, summed per transaction)',
    window: `last ${TIP_WINDOW_SLOTS} slots`,
    percentiles: ['p50', 'p95', 'p99'],
    ema: `EMA over ${TIP_EMA_SLOTS} tipped slots (alpha = 2/${TIP_EMA_SLOTS + 1}) of each slot's median tip`,
    history: `one point per ${TIP_HISTORY_EVERY_SLOTS} slots, ${TIP_HISTORY_MAX_POINTS} kept, last ${TIPFLOOR_HISTORY_RETURNED} returned`,
    cacheMs: TIPFLOOR_CACHE_MS,
  },
  epoch: {
    position: 'epoch, slot index and slots in epoch from the streamed head slot and getEpochSchedule (warm-up epochs included)',
    primaryRate: `slot rate over the last ${SHORT_RATE_WINDOW_MS / 1000} s of streamed slots`,
    altRate: `slot rate over the retained baseline (up to ${(SLOT_SAMPLE_CAPACITY * SLOT_SAMPLE_SPACING_MS) / 3_600_000} h, one sample per ${SLOT_SAMPLE_SPACING_MS / 1000} s)`,
    eta: 'remaining slots x the rate (alt only when rate=alt)',
  },
  sgpCheckpoint: {
    points: `every ${CHECKPOINT_EVERY_SLOTS} slots and at each epoch start, ${CHECKPOINT_MAX_POINTS} kept`,
    measured: 'slotMs and span from the baseline rate; etaEpochEndIso = now + remaining slots x slotMs',
  },
});

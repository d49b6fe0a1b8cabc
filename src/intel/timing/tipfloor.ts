/**
 * `/v1/tipfloor`: lamports landed transactions paid to the eight Jito tip accounts (top-level and
 * inner System transfers, summed per transaction) over the rolling slot window: nearest-rank
 * p50/p95/p99, the EMA of per-slot median tips, and the rolling history (one point per interval of
 * slots). The answer is cached about 60 s (docs/contract.md#limits); `fresh=true` recomputes it.
 * There is no RPC equivalent: while the stream is not live the last observed window is served and
 * the answer says the stream is stale.
 */
import type { ResponseOf } from '../../catalog/endpoints.ts';
import { createSingleFlightCache } from '../../caches/single-flight-cache.ts';
import { JITO_TIP_ACCOUNTS } from '../../chain/geyser/geyser-tx-parse.ts';
import { ServiceError } from '../../errors.ts';
import type { TimingSource } from './timing-source.ts';

/** Cache age about 60 s unless fresh=true (docs/contract.md#limits). */
export const TIPFLOOR_CACHE_MS = 60_000;
/** History points returned (the cache keeps up to an hour). */
export const TIPFLOOR_HISTORY_RETURNED = 30;
const LOAD_TIMEOUT_MS = 10_000;

interface TipSnapshot {
  /** The answer's figures: its schema's fields, and how they were measured. */
  readonly body: ResponseOf<'/v1/tipfloor'> & Readonly<Record<string, unknown>>;
  readonly slot: number | null;
  readonly dataAtMs: number | null;
  readonly computedAtMs: number;
}

/** Builds the handler over the timing source. */
export function createTipFloorHandler(
  source: TimingSource,
  config: { readonly emaSlots: number; readonly windowSlots: number; readonly historyEverySlots: number },
) {
  const cache = createSingleFlightCache<TipSnapshot>({ max: 1, ttlMs: TIPFLOOR_CACHE_MS });

  async function compute(): Promise<TipSnapshot> {
    const tips = source.caches.tips;
    const selection = tips.select();
    if (selection.tips.length === 0) {
      throw new ServiceError('upstream_unavailable', 'no Jito tip has been observed in the window yet (the Geyser stream feeds this figure); retry shortly', {
        stream: source.stream.status().state,
      });
    }
    const [p50, p95, p99] = (await source.percentiles(selection.tips, [50, 95, 99], AbortSignal.timeout(LOAD_TIMEOUT_MS))) as number[];
    const ema = tips.ema();
    const history = tips.history().slice(-TIPFLOOR_HISTORY_RETURNED);
    const status = source.stream.status();
    return {
      slot: selection.toSlot,
      dataAtMs: status.lastSlotAtMs,
      computedAtMs: Date.now(),
      body: {
        unit: 'lamports',
        p50: p50!,
        p95: p95!,
        p99: p99!,
        ema: ema.value ?? p50!,
        tips: selection.tips.length,
        window: { fromSlot: selection.fromSlot, toSlot: selection.toSlot, slotsCovered: selection.slotsCovered, windowSlots: config.windowSlots },
        emaMethod: {
          over: 'median tip of each completed slot with tips',
          spanSlots: config.emaSlots,
          alpha: Math.round((2 / (config.emaSlots + 1)) * 1e4) / 1e4,
          sinceSlot: ema.sinceSlot,
          slots: ema.slots,
          seeded: ema.value !== null,
        },
        history,
        historyMethod: {
          everySlots: config.historyEverySlots,
          kept: 'up to one hour',
          returned: history.length,
          perPoint: 'nearest-rank percentiles of the tips landed in that interval and the EMA at its end',
        },
        tipAccounts: JITO_TIP_ACCOUNTS,
        method:
          'lamports paid to the eight Jito tip accounts by each successful landed transaction (top-level and inner System Transfer / TransferWithSeed, summed per transaction), nearest-rank percentiles over the complete slots of the window',
      },
    };
  }

  return async (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => {
    if (query.fresh === true) cache.delete('tipfloor');
    const { value, loadedAtMs, shared } = await cache.get('tipfloor', compute, signal);
    const live = source.live();
    return {
      ...value.body,
      source: 'geyser',
      freshness: {
        ...source.freshness(value.slot, value.dataAtMs),
        cachedAt: new Date(loadedAtMs).toISOString(),
        fromCache: shared,
        cacheTtlSeconds: TIPFLOOR_CACHE_MS / 1000,
      },
      ...(live ? {} : { staleNote: 'the Geyser stream is not live: these are the last observed figures; no RPC method reports tips' }),
    };
  };
}

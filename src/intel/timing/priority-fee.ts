/**
 * `/v1/priority-fee`: the observed compute-unit price distribution of landed non-vote
 * transactions over the rolling slot window (per transaction; unpriced ones count as 0), narrowed
 * to transactions write-locking `accounts` when given. Bands map onto observed percentiles:
 * economy = p50, normal = p75, fast = p90, aggressive = p99. While the stream is not live the
 * RPC's getRecentPrioritizationFees (per-slot minimum prices) answers, labelled `rpc-fallback`.
 * Observed history, not a prediction.
 */
import type { ResponseOf } from '../../catalog/endpoints.ts';
import { decodeBase58 } from '../../chain/solana/base58.ts';
import { keyId } from '../../chain/geyser/geyser-tx-parse.ts';
import { createSingleFlightCache } from '../../caches/single-flight-cache.ts';
import { ServiceError } from '../../errors.ts';
import type { FeeBands, PaidHandler } from '../handler-group.ts';
import type { Freshness, TimingSource } from './timing-source.ts';

export const FEE_PERCENTILES = [50, 75, 90, 99] as const;
/** Which observed percentile each suggested band is. */
export const BAND_MAPPING = { economy: 'p50', normal: 'p75', fast: 'p90', aggressive: 'p99' } as const;
/** Answers are recomputed at most once per confirmed slot per account set. */
const ANSWER_CACHE_MS = 2_000;
const LOAD_TIMEOUT_MS = 10_000;
/** How far behind the confirmed head a served answer may be while the next one is computed. */
export const MAX_LAG_SLOTS = 4;
const LATEST_MAX_KEYS = 256;
/** Background refresh: account sets asked for within this time, at most this many, checked this often. */
const DEMAND_WINDOW_MS = 60_000;
const DEMAND_MAX_KEYS = 16;
const REFRESH_CHECK_MS = 100;
const NOTE = 'Observed history of landed transactions, not a prediction.';

interface FeeFigures {
  readonly p50: number;
  readonly p75: number;
  readonly p90: number;
  readonly p99: number;
}

interface FeeAnswer {
  readonly unit: 'microLamportsPerComputeUnit';
  readonly percentiles: FeeFigures;
  readonly suggestedBands: { readonly economy: number; readonly normal: number; readonly fast: number; readonly aggressive: number };
  readonly source: 'geyser' | 'rpc-fallback';
  readonly body: Readonly<Record<string, unknown>>;
  readonly slot: number | null;
  readonly dataAtMs: number | null;
}

const bandsOf = (p: FeeFigures) => ({ economy: p.p50, normal: p.p75, fast: p.p90, aggressive: p.p99 });

export interface PriorityFeeService {
  readonly handler: PaidHandler<ResponseOf<'/v1/priority-fee'>>;
  close(): void;
  feeBands(signal: AbortSignal): Promise<FeeBands>;
}

/** Builds the handler and the fee-bands lender over the timing source. */
export function createPriorityFee(source: TimingSource, windowSlots: number): PriorityFeeService {
  const answers = createSingleFlightCache<FeeAnswer>({ max: 256, ttlMs: ANSWER_CACHE_MS });

  async function fromStream(accounts: readonly string[] | undefined, signal: AbortSignal): Promise<FeeAnswer | null> {
    const ids = accounts?.map((a) => keyId(decodeBase58(a)!));
    const selection = source.caches.fees.select(ids);
    if (selection.windowTransactions === 0) return null;
    const narrowed = ids !== undefined && selection.prices.length > 0;
    const sample = ids !== undefined && !narrowed ? source.caches.fees.select().prices : selection.prices;
    const [p50, p75, p90, p99] = (await source.percentiles(sample, FEE_PERCENTILES, signal)) as number[];
    const percentiles = { p50: p50!, p75: p75!, p90: p90!, p99: p99! };
    const head = source.stream.status();
    return {
      unit: 'microLamportsPerComputeUnit',
      percentiles,
      suggestedBands: bandsOf(percentiles),
      source: 'geyser',
      slot: selection.toSlot,
      dataAtMs: head.lastSlotAtMs,
      body: {
        observed: {
          transactions: sample.length,
          windowTransactions: selection.windowTransactions,
          unpricedTransactionsInWindow: selection.unpricedTransactions,
          accountsRequested: accounts?.length ?? 0,
          narrowed,
          ...(ids !== undefined && !narrowed
            ? { narrowingNote: 'no transaction in the window write-locked the given accounts; figures cover all transactions' }
            : {}),
        },
        window: { fromSlot: selection.fromSlot, toSlot: selection.toSlot, slotsCovered: selection.slotsCovered, windowSlots },
        method:
          'nearest-rank percentiles of the compute-unit price (ComputeBudget SetComputeUnitPrice; 0 when unset) of each landed non-vote transaction, failed ones included, in the complete slots of the window',
      },
    };
  }

  async function fromRpc(accounts: readonly string[] | undefined, signal: AbortSignal): Promise<FeeAnswer> {
    const fees = await source.timingRpc.getRecentPrioritizationFees(accounts ?? [], signal);
    if (fees.length === 0) throw new ServiceError('upstream_unavailable', 'the Geyser stream is not live and the RPC returned no prioritization fees');
    const values = Float64Array.from(fees.map((f) => f.prioritizationFee));
    const [p50, p75, p90, p99] = (await source.percentiles(values, FEE_PERCENTILES, signal)) as number[];
    const percentiles = { p50: p50!, p75: p75!, p90: p90!, p99: p99! };
    const slots = fees.map((f) => f.slot);
    const toSlot = Math.max(...slots);
    return {
      unit: 'microLamportsPerComputeUnit',
      percentiles,
      suggestedBands: bandsOf(percentiles),
      source: 'rpc-fallback',
      slot: toSlot,
      dataAtMs: Date.now(),
      body: {
        observed: { slots: fees.length, accountsRequested: accounts?.length ?? 0 },
        window: { fromSlot: Math.min(...slots), toSlot, slotsCovered: fees.length },
        method:
          'nearest-rank percentiles of getRecentPrioritizationFees: per slot the minimum compute-unit price landed (raised to the highest per-account minimum of the given accounts); used while the Geyser stream is not live',
      },
    };
  }

  /** Last stream answer per account set, served while the next slot's figures are computed. */
  const latest = new Map<string, FeeAnswer>();
  const remember = (accountsKey: string, a: FeeAnswer): void => {
    latest.delete(accountsKey);
    latest.set(accountsKey, a);
    if (latest.size > LATEST_MAX_KEYS) latest.delete(latest.keys().next().value!);
  };

  /** The load is shared by concurrent callers: it must not die with the first caller's signal. */
  const loader = (accountsKey: string, accounts: readonly string[] | undefined) => async (): Promise<FeeAnswer> => {
    const detached = AbortSignal.timeout(LOAD_TIMEOUT_MS);
    const a = (await fromStream(accounts, detached)) ?? (await fromRpc(accounts, detached));
    if (a.source === 'geyser') remember(accountsKey, a);
    return a;
  };

  // Account sets asked for recently are recomputed in the background as slots confirm, so a
  // caller finds figures at most a slot or two old instead of waiting for a large sort.
  const demand = new Map<string, { readonly accounts: readonly string[] | undefined; atMs: number }>();
  const noteDemand = (accountsKey: string, accounts: readonly string[] | undefined): void => {
    const entry = demand.get(accountsKey);
    if (entry) entry.atMs = Date.now();
    else if (demand.size < DEMAND_MAX_KEYS) demand.set(accountsKey, { accounts, atMs: Date.now() });
  };
  let refreshedSlot: number | null = null;
  const refresh = setInterval(() => {
    const slot = source.caches.fees.window.lastConfirmed;
    if (slot === null || slot === refreshedSlot || !source.live()) return;
    refreshedSlot = slot;
    for (const [accountsKey, entry] of demand) {
      if (Date.now() - entry.atMs > DEMAND_WINDOW_MS) demand.delete(accountsKey);
      else answers.get(`${slot}|${accountsKey}`, loader(accountsKey, entry.accounts)).catch(() => undefined);
    }
  }, REFRESH_CHECK_MS);
  refresh.unref();

  async function answer(accounts: readonly string[] | undefined, signal: AbortSignal): Promise<FeeAnswer> {
    source.settle();
    if (!source.live()) return fromRpc(accounts, signal);
    const slot = source.caches.fees.window.lastConfirmed;
    const accountsKey = accounts ? [...accounts].sort().join(',') : '*';
    const key = `${slot}|${accountsKey}`;
    const load = loader(accountsKey, accounts);
    noteDemand(accountsKey, accounts);
    const previous = latest.get(accountsKey);
    if (previous !== undefined && previous.slot === slot) return previous;
    // Large windows take tens of ms to sort (in the pool): meanwhile the previous slot's figures
    // answer at once, their own slot and age stated, if they are at most MAX_LAG_SLOTS behind.
    if (previous !== undefined && previous.slot !== null && slot !== null && slot - previous.slot <= MAX_LAG_SLOTS) {
      answers.get(key, load).catch(() => undefined);
      return previous;
    }
    return (await answers.get(key, load, signal)).value;
  }

  const render = (a: FeeAnswer) => {
    const freshness: Freshness = source.freshness(a.slot, a.dataAtMs);
    return {
      unit: a.unit,
      percentiles: a.percentiles,
      suggestedBands: a.suggestedBands,
      bandMapping: BAND_MAPPING,
      ...a.body,
      source: a.source,
      freshness,
      note: NOTE,
    };
  };

  return {
    handler: async (query, signal) => render(await answer(query.accounts as string[] | undefined, signal)),
    close: () => clearInterval(refresh),
    async feeBands(signal) {
      const a = await answer(undefined, signal);
      return { unit: a.unit, suggestedBands: a.suggestedBands, source: a.source, slot: a.slot };
    },
  };
}

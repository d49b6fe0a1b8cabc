/**
 * `/v1/trending-tokens` and `/v1/new-pairs` from GeckoTerminal's `trending_pools` / `new_pools`
 * (page 1, 20 pools), cached POOLS_CACHE_TTL_MS per list with single-flight, trimmed to `limit`.
 * Figures the source leaves null (market cap for unverified tokens, volume of unpriced pools) are
 * `unknown`. Ages are computed at answer time from the source's `pool_created_at`.
 */
import { createSingleFlightCache } from '../../caches/single-flight-cache.ts';
import type { GeckoList, GeckoPool, GeckoTerminalClient, GeckoWindow, TxCounts } from '../../market-apis/geckoterminal-client.ts';
import { orUnknown, type Unknown } from '../unknown.ts';

/** GeckoTerminal refreshes pool stats about once a minute and allows ~30 calls/min: 30 s. */
export const POOLS_CACHE_TTL_MS = 30_000;
export const DEFAULT_POOL_LIMIT = 15;

function ageMinutes(createdAt: string | null, nowMs: number): number | Unknown {
  if (createdAt === null) return 'unknown';
  return Math.max(0, Math.floor((nowMs - Date.parse(createdAt)) / 60_000));
}

function windows<T, K extends GeckoWindow>(rec: Readonly<Record<GeckoWindow, T | null>>, keys: readonly K[]): Record<K, T | Unknown> {
  return Object.fromEntries(keys.map((k) => [k, orUnknown(rec[k])])) as Record<K, T | Unknown>;
}

function common(p: GeckoPool) {
  return {
    name: p.name,
    poolAddress: p.address,
    baseMint: orUnknown(p.baseMint),
    baseSymbol: orUnknown(p.baseSymbol),
    quoteMint: orUnknown(p.quoteMint),
    dex: orUnknown(p.dex),
    priceUsd: orUnknown(p.baseTokenPriceUsd),
    priceChangePct: windows(p.priceChangePct, ['m5', 'h1', 'h6', 'h24']),
    volume24hUsd: orUnknown(p.volumeUsd.h24),
    liquidityUsd: orUnknown(p.reserveUsd),
  };
}

function txTotal(t: TxCounts | null): number | Unknown {
  return t === null ? 'unknown' : t.buys + t.sells;
}

/** A trending pool row (pure). */
export function trendingRow(p: GeckoPool, nowMs: number) {
  return {
    ...common(p),
    fdvUsd: orUnknown(p.fdvUsd),
    marketCapUsd: orUnknown(p.marketCapUsd),
    transactions: windows(p.transactions, ['h1', 'h6', 'h24']),
    txCount24h: txTotal(p.transactions.h24),
    volumeUsd: windows(p.volumeUsd, ['h1', 'h6', 'h24']),
    poolCreatedAt: orUnknown(p.createdAt),
    poolAgeMinutes: ageMinutes(p.createdAt, nowMs),
  };
}

/** A new-pool row (pure). */
export function newPoolRow(p: GeckoPool, nowMs: number) {
  return {
    ...common(p),
    ageMinutes: ageMinutes(p.createdAt, nowMs),
    createdAt: orUnknown(p.createdAt),
    fdvUsd: orUnknown(p.fdvUsd),
    transactions: windows(p.transactions, ['h1', 'h24']),
  };
}

/** Handlers for both lists over one client and one cache. */
export function createPoolListHandlers(gecko: GeckoTerminalClient, ttlMs: number = POOLS_CACHE_TTL_MS) {
  const cache = createSingleFlightCache<readonly GeckoPool[]>({ max: 4, ttlMs });
  const handler =
    <Row>(list: GeckoList, row: (p: GeckoPool, nowMs: number) => Row, note: string) =>
    async (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => {
      const limit = typeof query.limit === 'number' ? query.limit : DEFAULT_POOL_LIMIT;
      const hit = await cache.get(list, () => gecko.pools(list), signal);
      const nowMs = Date.now();
      const pools = hit.value.slice(0, limit).map((p) => row(p, nowMs));
      return {
        count: pools.length,
        limit,
        pools,
        source: `geckoterminal ${list}`,
        fetchedAt: new Date(hit.loadedAtMs).toISOString(),
        cacheTtlSeconds: ttlMs / 1000,
        note,
      };
    };
  return {
    trending: handler('trending_pools', trendingRow, "Ranked by the source's trending order; priceChangePct in percent; unknown = the source has no value."),
    newPairs: handler('new_pools', newPoolRow, "Newest pools first; unvetted: listing here says nothing about a token's contract or holders."),
  };
}

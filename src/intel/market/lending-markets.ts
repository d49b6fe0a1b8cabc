/**
 * `/v1/lending/markets` from Kamino Lend: every market with its TVL (sum over reserves of
 * supplied USD minus borrowed USD), largest first, trimmed to `limit`. Reserve metrics are read
 * with at most RESERVE_CONCURRENCY requests in flight; a market whose metrics failed keeps its
 * row with `tvlUsd: "unknown"` and an `error`. Cached LENDING_CACHE_TTL_MS with single-flight.
 */
import { createSingleFlightCache } from '../../caches/single-flight-cache.ts';
import { marketTvlUsd, type LendingClient } from '../../market-apis/lending-client.ts';
import { ServiceError } from '../../errors.ts';
import { mapBounded } from './map-bounded.ts';

/** TVL moves slowly against a 1-minute horizon; one refresh per minute. */
export const LENDING_CACHE_TTL_MS = 60_000;
export const RESERVE_CONCURRENCY = 4;
export const DEFAULT_LENDING_LIMIT = 100;

export interface MarketRow {
  readonly name: string;
  readonly address: string;
  readonly tvlUsd: number | 'unknown';
  readonly reserves: number | 'unknown';
  readonly isPrimary: boolean;
  readonly error?: string;
}

/** Largest TVL first; unknown TVL last; then by address for a stable order. */
export function byTvl(a: MarketRow, b: MarketRow): number {
  const av = typeof a.tvlUsd === 'number' ? a.tvlUsd : -1;
  const bv = typeof b.tvlUsd === 'number' ? b.tvlUsd : -1;
  return bv - av || a.address.localeCompare(b.address);
}

async function load(client: LendingClient): Promise<MarketRow[]> {
  const markets = await client.markets();
  const settled = await mapBounded(markets, RESERVE_CONCURRENCY, (m) => client.reserves(m.address));
  const rows = markets.map((m, i): MarketRow => {
    const s = settled[i]!;
    if (s.status === 'fulfilled') return { name: m.name, address: m.address, tvlUsd: marketTvlUsd(s.value), reserves: s.value.length, isPrimary: m.isPrimary };
    const why = s.reason instanceof ServiceError ? `${s.reason.code}: ${s.reason.body.message}` : 'reserve metrics could not be read';
    return { name: m.name, address: m.address, tvlUsd: 'unknown', reserves: 'unknown', isPrimary: m.isPrimary, error: why };
  });
  const failed = settled.filter((s) => s.status === 'rejected');
  if (markets.length > 0 && failed.length === markets.length) {
    const first = (failed[0] as PromiseRejectedResult).reason;
    throw first instanceof ServiceError ? first : new ServiceError('upstream_unavailable', 'kamino reserve metrics could not be read', { source: 'kamino' });
  }
  return rows.sort(byTvl);
}

/** The `/v1/lending/markets` handler. */
export function createLendingMarketsHandler(client: LendingClient, ttlMs: number = LENDING_CACHE_TTL_MS) {
  const cache = createSingleFlightCache<MarketRow[]>({ max: 1, ttlMs });
  return async (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => {
    const limit = typeof query.limit === 'number' ? query.limit : DEFAULT_LENDING_LIMIT;
    const hit = await cache.get('markets', () => load(client), signal);
    const markets = hit.value.slice(0, limit);
    return {
      count: markets.length,
      total: hit.value.length,
      markets,
      tvlMethod: "tvlUsd = sum over the market's reserves of (totalSupplyUsd - totalBorrowUsd), Kamino's own USD figures",
      source: 'kamino',
      fetchedAt: new Date(hit.loadedAtMs).toISOString(),
      cacheTtlSeconds: ttlMs / 1000,
    };
  };
}

/**
 * `/v1/nft-collection` from Magic Eden: floor = the lowest current ask (Magic Eden's `floorPrice`,
 * in lamports and SOL; null when nothing is listed), listed count, 24 h average sale price (null
 * without a sale in 24 h) and 7-day volume summed from `/activities` sales (Magic Eden's stats
 * have no 7-day figure). Cached NFT_CACHE_TTL_MS per symbol with single-flight; an unknown
 * symbol answers 404.
 */
import { createSingleFlightCache } from '../../caches/single-flight-cache.ts';
import { LAMPORTS_PER_SOL, type CollectionStats, type MagicEdenClient, type SalesSum } from '../../market-apis/magiceden-client.ts';
import { ServiceError } from '../../errors.ts';
import { orUnknown, UNKNOWN } from '../unknown.ts';

/** Floors move with each listing; 30 s keeps bursts to one upstream call. */
export const NFT_CACHE_TTL_MS = 30_000;
export const VOLUME_WINDOW_SECONDS = 7 * 86_400;

type Snapshot =
  | { readonly found: false }
  | { readonly found: true; readonly stats: CollectionStats; readonly sales: SalesSum | { readonly error: string }; readonly sinceUnixSec: number };

const sol = (lamports: number) => lamports / LAMPORTS_PER_SOL;

/** The answer for a found collection (pure). */
export function nftAnswer(s: Extract<Snapshot, { found: true }>, fetchedAtMs: number) {
  const { stats, sales } = s;
  // Nothing listed: no ask, so no floor (null). Listed but no floor figure: unknown, not guessed.
  const floor: number | null | 'unknown' = stats.listedCount === 0 ? null : (stats.floorPriceLamports ?? 'unknown');
  const volume =
    'error' in sales
      ? { volume7dSol: UNKNOWN, error: sales.error }
      : sales.complete
        ? { volume7dSol: sol(sales.lamports), sales7d: sales.count }
        : { volume7dSol: UNKNOWN, error: 'more sales in 7 days than the activity pages read; the sum is not reported' };
  return {
    symbol: stats.symbol,
    floorPriceSol: typeof floor === 'number' ? sol(floor) : floor,
    floorPriceLamports: typeof floor === 'number' ? Math.round(floor) : floor,
    listedCount: orUnknown(stats.listedCount),
    avgPrice24hrSol: stats.avgPrice24hrLamports === null ? null : sol(stats.avgPrice24hrLamports),
    ...volume,
    volumeWindow: { from: new Date(s.sinceUnixSec * 1000).toISOString(), seconds: VOLUME_WINDOW_SECONDS },
    definitions: 'floor = lowest current ask (not a sale price); avgPrice24hrSol null = no sale in 24 h; volume7dSol = sum of buyNow sales in the last 7 days.',
    source: 'magiceden',
    fetchedAt: new Date(fetchedAtMs).toISOString(),
  };
}

async function load(me: MagicEdenClient, symbol: string): Promise<Snapshot> {
  const sinceUnixSec = Math.floor(Date.now() / 1000) - VOLUME_WINDOW_SECONDS;
  const [stats, sales] = await Promise.allSettled([me.stats(symbol), me.salesSince(symbol, sinceUnixSec)]);
  if (stats.status === 'rejected') throw stats.reason;
  if (stats.value === null) return { found: false };
  const salesValue =
    sales.status === 'fulfilled'
      ? sales.value
      : { error: sales.reason instanceof ServiceError ? `${sales.reason.code}: ${sales.reason.body.message}` : 'activities could not be read' };
  return { found: true, stats: stats.value, sales: salesValue, sinceUnixSec };
}

/** The `/v1/nft-collection` handler. */
export function createNftCollectionHandler(me: MagicEdenClient, ttlMs: number = NFT_CACHE_TTL_MS) {
  const cache = createSingleFlightCache<Snapshot>({ max: 1_000, ttlMs });
  return async (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => {
    const symbol = String(query.symbol);
    const hit = await cache.get(symbol, () => load(me, symbol), signal);
    if (!hit.value.found) throw new ServiceError('not_found', `Magic Eden has no collection with symbol ${symbol}`, { param: 'symbol' });
    return nftAnswer(hit.value, hit.loadedAtMs);
  };
}

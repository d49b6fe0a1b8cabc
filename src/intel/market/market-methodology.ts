/**
 * The published methodology of the market endpoints (for `/trust/sir` and `/openapi.json`), built
 * from the constants the handlers use so the document cannot drift from the behaviour.
 */
import { ACTIVITIES_MAX_PAGES, ACTIVITIES_PAGE_LIMIT } from '../../market-apis/magiceden-client.ts';
import { MARKET_MAX_RETRIES, MAX_RETRY_AFTER_MS } from '../../market-apis/market-http.ts';
import { USD_VALUE_SOURCE } from './dex-quote.ts';
import { LENDING_CACHE_TTL_MS, RESERVE_CONCURRENCY } from './lending-markets.ts';
import { DEPTH_THRESHOLDS_PCT, IMPACT_BAND_THRESHOLDS_PCT } from './market-math.ts';
import { NFT_CACHE_TTL_MS, VOLUME_WINDOW_SECONDS } from './nft-collection.ts';
import { POOLS_CACHE_TTL_MS } from './pool-lists.ts';
import { QUOTE_CACHE_TTL_MS } from './quote-source.ts';
import { SWEEP_CONCURRENCY } from './slippage-map.ts';

const b = IMPACT_BAND_THRESHOLDS_PCT;

export const MARKET_METHODOLOGY = Object.freeze({
  methodologyVersion: 'market.v1',
  sources: {
    quotes: 'Jupiter Swap API GET /swap/v1/quote',
    pools: 'GeckoTerminal API v2 trending_pools / new_pools (network solana, first page)',
    nft: 'Magic Eden Solana API v2 collections/{symbol}/stats and /activities',
    lending: 'Kamino Lend API /v2/kamino-market and /kamino-market/{market}/reserves/metrics',
    faults: `each request has a timeout and at most ${MARKET_MAX_RETRIES} retries on faults, 5xx and 429 (Retry-After honoured up to ${MAX_RETRY_AFTER_MS} ms); beyond that 502 and nothing is charged`,
  },
  dexQuote: {
    minReceived: 'floor(outAmount * (10000 - slippageBps) / 10000)',
    swapUsdValue: USD_VALUE_SOURCE,
    priceImpactPct: 'Jupiter priceImpactPct * 100',
    bands: { minimal: `< ${b.minimal}%`, low: `${b.minimal}% - < ${b.low}%`, moderate: `${b.low}% - < ${b.moderate}%`, high: `>= ${b.moderate}%` },
    hops: 'number of AMM legs in the route plan',
    cacheTtlMs: QUOTE_CACHE_TTL_MS,
  },
  slippageMap: {
    sizes: 'amount * mult for each multiplier (up to 8), each quoted separately',
    concurrency: SWEEP_CONCURRENCY,
    depth: `largest tested size strictly under ${DEPTH_THRESHOLDS_PCT.under1pct}% and ${DEPTH_THRESHOLDS_PCT.under5pct}% price impact, as its swapUsdValue`,
    note: 'a quote only; nothing is signed, sent or executed',
  },
  pools: { marketCap: "GeckoTerminal market_cap_usd; 'unknown' when the source has none", ageMinutes: 'now - pool_created_at', cacheTtlMs: POOLS_CACHE_TTL_MS },
  nftCollection: {
    floor: 'lowest current ask (Magic Eden floorPrice), in SOL and lamports',
    volume7dSol: `sum of buyNow sales within ${VOLUME_WINDOW_SECONDS / 86_400} days from /activities (up to ${ACTIVITIES_MAX_PAGES} pages of ${ACTIVITIES_PAGE_LIMIT}); 'unknown' beyond that`,
    cacheTtlMs: NFT_CACHE_TTL_MS,
  },
  lendingMarkets: {
    tvlUsd: 'sum over the market reserves of (totalSupplyUsd - totalBorrowUsd), Kamino USD figures',
    reserveConcurrency: RESERVE_CONCURRENCY,
    cacheTtlMs: LENDING_CACHE_TTL_MS,
  },
});

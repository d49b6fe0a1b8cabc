/**
 * Stand-in for Magic Eden's Solana API v2 collection endpoints, answered from the NFT collections
 * of the market fixture (current listings and sale history).
 *
 * Shapes followed (api-mainnet.magiceden.dev/v2, as documented at docs.magiceden.io and seen in
 * public clients): `GET /v2/collections/{symbol}/stats` -> {symbol, floorPrice, listedCount,
 * listedTotalValue, avgPrice24hr, volume24hr, volumeAll}, all prices in lamports, `floorPrice`
 * absent when nothing is listed and `avgPrice24hr` absent without a sale in 24 h, as the real API
 * omits them; `/listings` and `/activities` (type `buyNow`) are arrays whose `price` is in SOL.
 * Query validation errors use Magic Eden's `{ errors: [{ value, msg, param, location }] }` body
 * with 400; an unknown symbol answers 404 `{ msg: "Collection not found" }`.
 *
 * Derived values: floor = lowest current ask; avgPrice24hr = mean of sales in the last 24 h;
 * volume24hr / volumeAll = sums of sales in 24 h / all of the fixture's history. Sale times are
 * `secondsAgo` before the stand-in started.
 */
import type { FixtureNftCollection, FixtureNftSale, MarketFixture } from './market-fixture.ts';
import { reply, type JsonReply, type MarketRequest } from './market-http.ts';

export const LAMPORTS_PER_SOL = 1_000_000_000;
export const DAY_SECONDS = 86_400;
/** Magic Eden's paging limits for collection listings and activities. */
export const LISTINGS_MAX_LIMIT = 100;
export const ACTIVITIES_MAX_LIMIT = 1000;
const DEFAULT_LIMIT = 20;

export interface MagicEdenDeps {
  readonly fixture: MarketFixture;
  /** Unix seconds the stand-in started; fixture sale times count back from it. */
  readonly startedAtSec: number;
}

function invalidParam(param: string, value: string): JsonReply {
  return reply(400, { errors: [{ value, msg: 'Invalid value', param, location: 'query' }] });
}

function parsePaging(query: URLSearchParams, maxLimit: number): { offset: number; limit: number } | JsonReply {
  const offsetRaw = query.get('offset') ?? '0';
  const limitRaw = query.get('limit') ?? String(DEFAULT_LIMIT);
  const offset = /^[0-9]+$/.test(offsetRaw) ? Number(offsetRaw) : NaN;
  const limit = /^[0-9]+$/.test(limitRaw) ? Number(limitRaw) : NaN;
  if (!Number.isSafeInteger(offset)) return invalidParam('offset', offsetRaw);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > maxLimit) return invalidParam('limit', limitRaw);
  return { offset, limit };
}

function saleTime(sale: FixtureNftSale, deps: MagicEdenDeps): number {
  return deps.startedAtSec - sale.secondsAgo;
}

function lamportsSum(values: readonly bigint[]): bigint {
  return values.reduce((a, b) => a + b, 0n);
}

/** Stats of one collection at `nowSec`. */
export function collectionStats(c: FixtureNftCollection, deps: MagicEdenDeps, nowSec: number): Record<string, unknown> {
  const asks = c.listings.map((l) => BigInt(l.priceLamports));
  const floor = asks.reduce<bigint | null>((min, a) => (min === null || a < min ? a : min), null);
  const recent = c.sales.filter((s) => nowSec - saleTime(s, deps) < DAY_SECONDS).map((s) => BigInt(s.priceLamports));
  const volume24hr = lamportsSum(recent);
  return {
    symbol: c.symbol,
    ...(floor === null ? {} : { floorPrice: Number(floor) }),
    listedCount: asks.length,
    listedTotalValue: Number(lamportsSum(asks)),
    ...(recent.length === 0 ? {} : { avgPrice24hr: Number(volume24hr) / recent.length }),
    volume24hr: Number(volume24hr),
    volumeAll: Number(lamportsSum(c.sales.map((s) => BigInt(s.priceLamports)))),
  };
}

function toSol(lamports: string): number {
  return Number(BigInt(lamports)) / LAMPORTS_PER_SOL;
}

function listings(c: FixtureNftCollection, query: URLSearchParams): JsonReply {
  const paging = parsePaging(query, LISTINGS_MAX_LIMIT);
  if ('status' in paging) return paging;
  const sorted = [...c.listings].sort((a, b) => {
    const d = BigInt(a.priceLamports) - BigInt(b.priceLamports);
    return d < 0n ? -1 : d > 0n ? 1 : a.tokenMint.localeCompare(b.tokenMint);
  });
  return reply(
    200,
    sorted.slice(paging.offset, paging.offset + paging.limit).map((l) => ({
      pdaAddress: l.pdaAddress,
      auctionHouse: '',
      tokenAddress: l.tokenAddress,
      tokenMint: l.tokenMint,
      seller: l.seller,
      tokenSize: 1,
      price: toSol(l.priceLamports),
    })),
  );
}

function activities(c: FixtureNftCollection, deps: MagicEdenDeps, query: URLSearchParams): JsonReply {
  const paging = parsePaging(query, ACTIVITIES_MAX_LIMIT);
  if ('status' in paging) return paging;
  const type = query.get('type');
  // Only sales are in the fixture's history; other activity types have no events to list.
  const sales = type === null || type === 'buyNow' ? [...c.sales].sort((a, b) => a.secondsAgo - b.secondsAgo) : [];
  return reply(
    200,
    sales.slice(paging.offset, paging.offset + paging.limit).map((s) => ({
      signature: s.signature,
      type: 'buyNow',
      source: 'magiceden_v2',
      tokenMint: s.tokenMint,
      collection: c.symbol,
      collectionSymbol: c.symbol,
      blockTime: saleTime(s, deps),
      buyer: s.buyer,
      buyerReferral: '',
      seller: s.seller,
      sellerReferral: '',
      price: toSol(s.priceLamports),
    })),
  );
}

/** Answers `/v2/collections/{symbol}/{stats|listings|activities}`. */
export function handleMagicEden(deps: MagicEdenDeps, symbol: string, view: string, req: MarketRequest): JsonReply {
  const collection = deps.fixture.nftCollections.find((c) => c.symbol === symbol);
  if (collection === undefined) return reply(404, { msg: 'Collection not found' });
  if (view === 'stats') return reply(200, collectionStats(collection, deps, req.nowSec));
  if (view === 'listings') return listings(collection, req.query);
  if (view === 'activities') return activities(collection, deps, req.query);
  return reply(404, { msg: 'Not Found' });
}

/**
 * The committed description of the local world's off-chain markets (`fixture/market.json`): token
 * metadata for GeckoTerminal's `included` tokens, NFT collections with their current listings and
 * sale history, and lending markets with their reserves. Everything here is static and
 * deterministic; the stand-ins combine it with live chain state (pool prices) when they answer.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { localnetPath } from '../package-dir.ts';

/** Path of the committed fixture (src/fixture/ of the package). */
export const MARKET_FIXTURE_URL = pathToFileURL(localnetPath('src', 'fixture', 'market.json'));

export interface FixtureToken {
  readonly mint: string;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
}

/** A current ask on the marketplace. */
export interface FixtureNftListing {
  readonly tokenMint: string;
  readonly tokenAddress: string;
  readonly pdaAddress: string;
  readonly seller: string;
  /** Ask in lamports, decimal string. */
  readonly priceLamports: string;
}

/** A completed sale, placed in time relative to the moment the stand-in started. */
export interface FixtureNftSale {
  readonly signature: string;
  readonly tokenMint: string;
  readonly buyer: string;
  readonly seller: string;
  readonly priceLamports: string;
  readonly secondsAgo: number;
}

export interface FixtureNftCollection {
  readonly symbol: string;
  readonly name: string;
  readonly listings: readonly FixtureNftListing[];
  readonly sales: readonly FixtureNftSale[];
}

/** A lending reserve; token amounts are whole-token decimal strings, USD comes from pool prices. */
export interface FixtureLendingReserve {
  readonly reserve: string;
  readonly liquidityToken: string;
  readonly liquidityTokenMint: string;
  readonly totalSupply: string;
  readonly totalBorrow: string;
  readonly supplyApy: string;
  readonly borrowApy: string;
  readonly maxLtv: string;
}

export interface FixtureLendingMarket {
  readonly lendingMarket: string;
  readonly name: string;
  readonly description: string;
  readonly isPrimary: boolean;
  readonly isCurated: boolean;
  readonly lookupTable: string;
  readonly reserves: readonly FixtureLendingReserve[];
}

export interface MarketFixture {
  readonly tokens: readonly FixtureToken[];
  readonly nftCollections: readonly FixtureNftCollection[];
  readonly lendingMarkets: readonly FixtureLendingMarket[];
}

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,88}$/;
const UINT = /^[0-9]+$/;
const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;

function fail(path: string, why: string): never {
  throw new Error(`market fixture: ${path} ${why}`);
}

function check(ok: boolean, path: string, why: string): void {
  if (!ok) fail(path, why);
}

function checkCollection(c: FixtureNftCollection, path: string): void {
  check(typeof c.symbol === 'string' && c.symbol.length > 0, `${path}.symbol`, 'must be a non-empty string');
  c.listings.forEach((l, i) => {
    check(BASE58.test(l.tokenMint) && BASE58.test(l.seller), `${path}.listings[${i}]`, 'needs base58 addresses');
    check(UINT.test(l.priceLamports), `${path}.listings[${i}].priceLamports`, 'must be an unsigned integer string');
  });
  c.sales.forEach((s, i) => {
    check(UINT.test(s.priceLamports), `${path}.sales[${i}].priceLamports`, 'must be an unsigned integer string');
    check(Number.isInteger(s.secondsAgo) && s.secondsAgo >= 0, `${path}.sales[${i}].secondsAgo`, 'must be a non-negative integer');
  });
}

function checkMarket(m: FixtureLendingMarket, path: string): void {
  check(BASE58.test(m.lendingMarket), `${path}.lendingMarket`, 'must be a base58 address');
  m.reserves.forEach((r, i) => {
    check(BASE58.test(r.reserve) && BASE58.test(r.liquidityTokenMint), `${path}.reserves[${i}]`, 'needs base58 addresses');
    check(DECIMAL.test(r.totalSupply) && DECIMAL.test(r.totalBorrow), `${path}.reserves[${i}]`, 'needs decimal supply/borrow');
  });
}

/** Validates parsed JSON as a `MarketFixture`, throwing with the offending path. */
export function parseMarketFixture(json: unknown): MarketFixture {
  const f = json as MarketFixture;
  check(typeof json === 'object' && json !== null, '$', 'must be an object');
  check(
    Array.isArray(f.tokens) && Array.isArray(f.nftCollections) && Array.isArray(f.lendingMarkets),
    '$',
    'needs tokens, nftCollections and lendingMarkets arrays',
  );
  for (const [i, t] of f.tokens.entries())
    check(BASE58.test(t.mint) && Number.isInteger(t.decimals), `tokens[${i}]`, 'needs a base58 mint and integer decimals');
  for (const [i, c] of f.nftCollections.entries()) checkCollection(c, `nftCollections[${i}]`);
  for (const [i, m] of f.lendingMarkets.entries()) checkMarket(m, `lendingMarkets[${i}]`);
  const symbols = new Set(f.nftCollections.map((c) => c.symbol));
  check(symbols.size === f.nftCollections.length, 'nftCollections', 'has duplicate symbols');
  return f;
}

/** Reads and validates the committed fixture (or another file with the same shape). */
export function loadMarketFixture(url: URL = MARKET_FIXTURE_URL): MarketFixture {
  return parseMarketFixture(JSON.parse(readFileSync(url, 'utf8')) as unknown);
}

/**
 * Builds GeckoTerminal API v2 JSON:API resources (`pool`, `token`, `dex`) for the localnet's
 * pools. Shape followed: GeckoTerminal's public Swagger (api.geckoterminal.com/docs, "pools"
 * section) and the CoinGecko on-chain reference for the same endpoints: numbers as decimal
 * strings, `id` = `<network>_<address>`, relationships pointing at `token`/`dex` resources that
 * `include=` copies into the top-level `included` array. `market_cap_usd` is null because
 * GeckoTerminal only reports it for CoinGecko-verified tokens, which no local token is.
 */
import type { PoolReader, PoolState } from '../chain/types.ts';
import type { FixtureToken } from './market-fixture.ts';
import type { PoolStats, WindowName } from './pool-activity.ts';
import { WINDOW_NAMES } from './pool-activity.ts';
import { baseMintOf, basePriceInQuote, quoteMintOf, reserveUsd, WSOL_MINT, type PriceBook } from './market-prices.ts';
import { toUiAmount } from './cp-quote.ts';
import { decimalString } from './market-http.ts';

export const GECKO_NETWORK = 'solana';
/** Decimals kept in USD amounts and percentages, as GeckoTerminal renders them. */
export const USD_DECIMALS = 6;
export const PERCENT_DECIMALS = 2;

/** A PoolReader that may also report a mint's total supply (used for `fdv_usd`). */
export interface MarketPoolReader extends PoolReader {
  /** Raw total supply of `mint` read from chain, null when unknown. Optional: fdv is null without it. */
  mintSupply?(mint: string): bigint | null;
}

/** Fixed-decimals rendering (USD, percent) with trailing zeros cut; huge values fall back to plain digits. */
function fixedString(n: number, decimals: number): string {
  if (Math.abs(n) >= 1e21) return decimalString(n);
  const fixed = n.toFixed(decimals);
  const trimmed = fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
  return trimmed === '-0' ? '0' : trimmed;
}

function nullableString(n: number | null, render: (v: number) => string): string | null {
  return n === null || !Number.isFinite(n) ? null : render(n);
}

export function tokenId(mint: string): string {
  return `${GECKO_NETWORK}_${mint}`;
}

/** GeckoTerminal-style dex id from a pool label ("Raydium CPMM" -> "raydium-cpmm"). */
export function dexId(label: string): string {
  return (
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'unknown'
  );
}

function isoSeconds(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function perWindow<T>(f: (w: WindowName) => T): Record<WindowName, T> {
  return Object.fromEntries(WINDOW_NAMES.map((w) => [w, f(w)])) as Record<WindowName, T>;
}

export interface PoolContext {
  readonly pools: MarketPoolReader;
  readonly book: PriceBook;
  readonly tokens: ReadonlyMap<string, FixtureToken>;
}

function priceAttributes(pool: PoolState, ctx: PoolContext): Record<string, string | null> {
  const base = baseMintOf(pool);
  const quote = quoteMintOf(pool);
  const [baseUsd, quoteUsd, solUsd] = [ctx.book.usdPrice(base), ctx.book.usdPrice(quote), ctx.book.usdPrice(WSOL_MINT)];
  const inQuote = basePriceInQuote(pool);
  const native = (usd: number | null): string | null => (usd === null || solUsd === null ? null : decimalString(usd / solUsd));
  return {
    base_token_price_usd: nullableString(baseUsd, (v) => decimalString(v)),
    base_token_price_native_currency: native(baseUsd),
    quote_token_price_usd: nullableString(quoteUsd, (v) => decimalString(v)),
    quote_token_price_native_currency: native(quoteUsd),
    base_token_price_quote_token: nullableString(inQuote, (v) => decimalString(v)),
    quote_token_price_base_token: nullableString(inQuote === null ? null : 1 / inQuote, (v) => decimalString(v)),
  };
}

function fdvUsd(pool: PoolState, ctx: PoolContext): number | null {
  const base = baseMintOf(pool);
  const supply = ctx.pools.mintSupply?.(base) ?? null;
  const price = ctx.book.usdPrice(base);
  if (supply === null || price === null) return null;
  const decimals = base === pool.mintA ? pool.decimalsA : pool.decimalsB;
  return toUiAmount(supply, decimals) * price;
}

function symbolOf(mint: string, ctx: PoolContext): string {
  return ctx.tokens.get(mint)?.symbol ?? mint;
}

/** The JSON:API `pool` resource of one pool with its window statistics. */
export function poolResource(pool: PoolState, stats: PoolStats, ctx: PoolContext): Record<string, unknown> {
  const base = baseMintOf(pool);
  const quote = quoteMintOf(pool);
  return {
    id: `${GECKO_NETWORK}_${pool.address}`,
    type: 'pool',
    attributes: {
      ...priceAttributes(pool, ctx),
      address: pool.address,
      name: `${symbolOf(base, ctx)} / ${symbolOf(quote, ctx)}`,
      pool_created_at: isoSeconds(pool.createdAt),
      fdv_usd: nullableString(fdvUsd(pool, ctx), (v) => fixedString(v, USD_DECIMALS)),
      market_cap_usd: null,
      price_change_percentage: perWindow((w) => fixedString(stats[w].priceChangePct, PERCENT_DECIMALS)),
      transactions: perWindow((w) => ({ buys: stats[w].buys, sells: stats[w].sells, buyers: stats[w].buyers, sellers: stats[w].sellers })),
      volume_usd: perWindow((w) => nullableString(stats[w].volumeUsd, (v) => fixedString(v, USD_DECIMALS))),
      reserve_in_usd: nullableString(reserveUsd(pool, ctx.book), (v) => fixedString(v, 4)),
    },
    relationships: {
      base_token: { data: { id: tokenId(base), type: 'token' } },
      quote_token: { data: { id: tokenId(quote), type: 'token' } },
      dex: { data: { id: dexId(pool.label), type: 'dex' } },
    },
  };
}

/** The JSON:API `token` resource for `included`; metadata the fixture lacks is null. */
export function tokenResource(mint: string, decimals: number, ctx: PoolContext): Record<string, unknown> {
  const meta = ctx.tokens.get(mint);
  return {
    id: tokenId(mint),
    type: 'token',
    attributes: {
      address: mint,
      name: meta?.name ?? null,
      symbol: meta?.symbol ?? null,
      image_url: null,
      coingecko_coin_id: null,
      decimals: meta?.decimals ?? decimals,
    },
  };
}

/** The JSON:API `dex` resource for `included`. */
export function dexResource(label: string): Record<string, unknown> {
  return { id: dexId(label), type: 'dex', attributes: { name: label } };
}

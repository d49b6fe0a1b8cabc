/**
 * Stand-in for GeckoTerminal API v2 `GET /api/v2/networks/{network}/trending_pools` and
 * `/new_pools`, answered from the localnet's pools and the swaps observed on chain.
 *
 * Ordering rules (GeckoTerminal's own trending also weighs page visits, which a localnet has not):
 * - trending: most transactions (buys + sells) in the `duration` window (default 24h), then
 *   higher USD volume in that window, then deeper `reserve_in_usd`, then pool address. Pools with
 *   no trade yet still appear, ordered by liquidity, so a fresh world is not an empty list.
 * - new_pools: newest `createdAt` first, then pool address.
 * Paging as GeckoTerminal: 20 pools per page, `page` 1..10. `include` takes any of base_token,
 * quote_token, dex (unknown names are ignored). Errors use GeckoTerminal's
 * `{ errors: [{ status, title }] }` body: 404 for a network other than solana, 400 for a bad
 * `duration` or `page`.
 */
import type { PoolState } from '../chain/types.ts';
import type { PoolActivity, WindowName } from './pool-activity.ts';
import { baseMintOf, createPriceBook, quoteMintOf, reserveUsd } from './market-prices.ts';
import { reply, type JsonReply, type MarketRequest } from './market-http.ts';
import { dexResource, GECKO_NETWORK, poolResource, tokenResource, type PoolContext } from './market-gecko-pool.ts';

export const GECKO_PAGE_SIZE = 20;
export const GECKO_MAX_PAGE = 10;
/** GeckoTerminal's `duration` values mapped onto our window names. */
export const TRENDING_DURATIONS: Readonly<Record<string, WindowName>> = { '5m': 'm5', '1h': 'h1', '6h': 'h6', '24h': 'h24' };
export const DEFAULT_TRENDING_DURATION = '24h';

export type GeckoList = 'trending_pools' | 'new_pools';

function geckoError(status: number, title: string): JsonReply {
  return reply(status, { errors: [{ status: String(status), title }] });
}

function parsePage(query: URLSearchParams): number | JsonReply {
  const raw = query.get('page');
  if (raw === null) return 1;
  const page = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(page) || page < 1 || page > GECKO_MAX_PAGE) {
    return geckoError(400, `Invalid page. Allowed values: 1 to ${GECKO_MAX_PAGE}`);
  }
  return page;
}

function parseIncludes(query: URLSearchParams): ReadonlySet<string> {
  const raw = query.get('include') ?? '';
  const allowed = new Set(['base_token', 'quote_token', 'dex']);
  return new Set(
    raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => allowed.has(s)),
  );
}

interface Ranked {
  readonly pool: PoolState;
  readonly resource: Record<string, unknown>;
  readonly txCount: number;
  readonly volume: number;
  readonly reserve: number;
}

function byTrending(a: Ranked, b: Ranked): number {
  return b.txCount - a.txCount || b.volume - a.volume || b.reserve - a.reserve || a.pool.address.localeCompare(b.pool.address);
}

function byNewest(a: Ranked, b: Ranked): number {
  return b.pool.createdAt - a.pool.createdAt || a.pool.address.localeCompare(b.pool.address);
}

function includedResources(pools: readonly PoolState[], includes: ReadonlySet<string>, ctx: PoolContext): unknown[] {
  const out = new Map<string, unknown>();
  for (const pool of pools) {
    for (const [kind, mint] of [
      ['base_token', baseMintOf(pool)],
      ['quote_token', quoteMintOf(pool)],
    ] as const) {
      if (!includes.has(kind)) continue;
      const decimals = mint === pool.mintA ? pool.decimalsA : pool.decimalsB;
      out.set(`token:${mint}`, tokenResource(mint, decimals, ctx));
    }
    if (includes.has('dex')) out.set(`dex:${pool.label}`, dexResource(pool.label));
  }
  return [...out.values()];
}

/** Dependencies of the GeckoTerminal handler. */
export interface GeckoDeps {
  readonly ctx: Omit<PoolContext, 'book'>;
  readonly activity: PoolActivity;
}

/** Answers `/api/v2/networks/{network}/{list}` for the pools on chain right now. */
export function handleGeckoPools(deps: GeckoDeps, network: string, list: GeckoList, req: MarketRequest): JsonReply {
  if (network !== GECKO_NETWORK) return geckoError(404, 'Not Found');
  const page = parsePage(req.query);
  if (typeof page !== 'number') return page;
  const duration = req.query.get('duration') ?? DEFAULT_TRENDING_DURATION;
  const window = TRENDING_DURATIONS[duration];
  if (list === 'trending_pools' && window === undefined) {
    return geckoError(400, 'Invalid duration. Allowed values: 5m, 1h, 6h, 24h');
  }
  const snapshot = deps.ctx.pools.pools();
  const ctx: PoolContext = { ...deps.ctx, book: createPriceBook(snapshot) };
  const w: WindowName = window ?? 'h24';
  const ranked = snapshot.map((pool): Ranked => {
    const stats = deps.activity.stats(pool, ctx.book.usdPrice(quoteMintOf(pool)), req.nowSec);
    const s = stats[w];
    return {
      pool,
      resource: poolResource(pool, stats, ctx),
      txCount: s.buys + s.sells,
      volume: s.volumeUsd ?? 0,
      reserve: reserveUsd(pool, ctx.book) ?? 0,
    };
  });
  ranked.sort(list === 'trending_pools' ? byTrending : byNewest);
  const pageItems = ranked.slice((page - 1) * GECKO_PAGE_SIZE, page * GECKO_PAGE_SIZE);
  const includes = parseIncludes(req.query);
  const body: Record<string, unknown> = { data: pageItems.map((r) => r.resource) };
  if (includes.size > 0)
    body.included = includedResources(
      pageItems.map((r) => r.pool),
      includes,
      ctx,
    );
  return reply(200, body);
}

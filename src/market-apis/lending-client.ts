/**
 * Lending-markets client over Kamino Lend's public API (api.kamino.finance, keyless), chosen
 * because `/v1/lending/markets` (docs/contract.md#response-fields) lists markets with an on-chain
 * address, which Kamino serves (`lendingMarket`) and aggregate TVL feeds such as DefiLlama's
 * protocol rows do not.
 *
 * - `GET /v2/kamino-market` -> `[{ lendingMarket, name, isPrimary, isCurated, description, lookupTable }]`
 * - `GET /kamino-market/{market}/reserves/metrics?env=mainnet-beta` -> per reserve
 *   `{ reserve, liquidityToken, liquidityTokenMint, totalSupply, totalBorrow, totalSupplyUsd, totalBorrowUsd, ... }`
 *   (numbers as decimal strings).
 *
 * A market's TVL is the liquidity still deposited: the sum over its reserves of
 * totalSupplyUsd - totalBorrowUsd (DefiLlama's lending convention); Kamino serves no TVL figure.
 */
import { createMarketHttp, malformed, unexpectedStatus, type MarketHttp } from './market-http.ts';
import { readNumber, readObject, readString } from './market-json.ts';

export const LENDING_SOURCE = 'kamino';
export const KAMINO_ENV = 'mainnet-beta';

export interface LendingClientConfig {
  readonly baseUrl: string;
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
}

export interface LendingMarket {
  readonly address: string;
  readonly name: string;
  readonly isPrimary: boolean;
}

export interface ReserveMetrics {
  readonly reserve: string;
  readonly symbol: string | null;
  readonly totalSupplyUsd: number;
  readonly totalBorrowUsd: number;
}

export interface LendingClient {
  markets(signal?: AbortSignal): Promise<readonly LendingMarket[]>;
  reserves(market: string, signal?: AbortSignal): Promise<readonly ReserveMetrics[]>;
}

/** Reads the market list; null when it is not an array of markets with an address. */
export function parseMarkets(body: unknown): LendingMarket[] | null {
  if (!Array.isArray(body)) return null;
  const out: LendingMarket[] = [];
  for (const item of body) {
    const m = readObject(item);
    const address = readString(m?.lendingMarket);
    if (m === null || address === null) return null;
    out.push({ address, name: readString(m.name) ?? address, isPrimary: m.isPrimary === true });
  }
  return out;
}

/** Reads reserve metrics; null when a reserve lacks its USD supply or borrow figure. */
export function parseReserves(body: unknown): ReserveMetrics[] | null {
  if (!Array.isArray(body)) return null;
  const out: ReserveMetrics[] = [];
  for (const item of body) {
    const r = readObject(item);
    const supply = readNumber(r?.totalSupplyUsd);
    const borrow = readNumber(r?.totalBorrowUsd);
    const reserve = readString(r?.reserve);
    if (supply === null || borrow === null || reserve === null) return null;
    out.push({ reserve, symbol: readString(r?.liquidityToken), totalSupplyUsd: supply, totalBorrowUsd: borrow });
  }
  return out;
}

/** TVL of a market: deposited liquidity net of borrows, summed over reserves (never below 0 per reserve). */
export function marketTvlUsd(reserves: readonly ReserveMetrics[]): number {
  return reserves.reduce((sum, r) => sum + Math.max(0, r.totalSupplyUsd - r.totalBorrowUsd), 0);
}

/** Creates the client; `http` may be injected (tests). */
export function createLendingClient(config: LendingClientConfig, http?: MarketHttp): LendingClient {
  const h =
    http ??
    createMarketHttp({
      source: LENDING_SOURCE,
      baseUrl: config.baseUrl,
      ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
      ...(config.maxRetries === undefined ? {} : { maxRetries: config.maxRetries }),
    });
  return {
    async markets(signal) {
      const res = await h.getJson('/v2/kamino-market', {}, signal);
      if (res.status !== 200) throw unexpectedStatus(LENDING_SOURCE, res);
      const markets = parseMarkets(res.body);
      if (markets === null) throw malformed(LENDING_SOURCE, 'market list');
      return markets;
    },
    async reserves(market, signal) {
      const res = await h.getJson(`/kamino-market/${encodeURIComponent(market)}/reserves/metrics`, { env: KAMINO_ENV }, signal);
      if (res.status !== 200) throw unexpectedStatus(LENDING_SOURCE, res);
      const reserves = parseReserves(res.body);
      if (reserves === null) throw malformed(LENDING_SOURCE, `reserve metrics of ${market}`);
      return reserves;
    },
  };
}

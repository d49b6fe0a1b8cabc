/**
 * Lending-markets stand-in with Kamino Lend's public API shape (api.kamino.finance), chosen over
 * DefiLlama's `/protocols` because `/v1/lending/markets` (docs/contract.md#response-fields) lists
 * markets with an on-chain `address`, which Kamino's API has (`lendingMarket`) and DefiLlama's
 * protocol rows do not.
 *
 * - `GET /v2/kamino-market` -> `[{ lendingMarket, isPrimary, isCurated, name, description, lookupTable }]`
 * - `GET /kamino-market/{market}/reserves/metrics?env=mainnet-beta` ->
 *   `[{ reserve, liquidityToken, liquidityTokenMint, maxLtv, borrowApy, supplyApy, totalSupply,
 *   totalBorrow, totalSupplyUsd, totalBorrowUsd }]`, numbers as decimal strings as Kamino sends.
 *
 * A market's TVL is what its consumers compute from the reserves: sum of
 * (totalSupplyUsd - totalBorrowUsd), the liquidity still deposited, as DefiLlama counts lending TVL.
 * Reserve amounts come from the fixture; their USD values use the localnet's pool prices, so TVL
 * moves with the chain. A reserve whose token has no pool path to USDC has no USD value and is
 * left out of the answer rather than given an invented price.
 * Errors (shape not documented by Kamino): 400 / 404 with `{ statusCode, error, message }`.
 */
import type { FixtureLendingReserve, MarketFixture } from './market-fixture.ts';
import type { PriceBook } from './market-prices.ts';
import { decimalString, isAddress, reply, type JsonReply, type MarketRequest } from './market-http.ts';

export const KAMINO_ENV = 'mainnet-beta';

function kaminoError(statusCode: number, error: string, message: string): JsonReply {
  return reply(statusCode, { statusCode, error, message });
}

/** Answers `GET /v2/kamino-market`. */
export function handleKaminoMarkets(fixture: MarketFixture): JsonReply {
  return reply(
    200,
    fixture.lendingMarkets.map((m) => ({
      lendingMarket: m.lendingMarket,
      isPrimary: m.isPrimary,
      isCurated: m.isCurated,
      name: m.name,
      description: m.description,
      lookupTable: m.lookupTable,
    })),
  );
}

function reserveMetrics(r: FixtureLendingReserve, book: PriceBook): Record<string, string> | null {
  const price = book.usdPrice(r.liquidityTokenMint);
  if (price === null) return null;
  return {
    reserve: r.reserve,
    liquidityToken: r.liquidityToken,
    liquidityTokenMint: r.liquidityTokenMint,
    maxLtv: r.maxLtv,
    borrowApy: r.borrowApy,
    supplyApy: r.supplyApy,
    totalSupply: r.totalSupply,
    totalBorrow: r.totalBorrow,
    totalBorrowUsd: decimalString(Number(r.totalBorrow) * price),
    totalSupplyUsd: decimalString(Number(r.totalSupply) * price),
  };
}

/** Answers `GET /kamino-market/{market}/reserves/metrics`. */
export function handleKaminoReserves(fixture: MarketFixture, book: PriceBook, market: string, req: MarketRequest): JsonReply {
  const env = req.query.get('env') ?? KAMINO_ENV;
  if (env !== KAMINO_ENV) return kaminoError(400, 'Bad Request', `querystring/env must be equal to one of the allowed values: ${KAMINO_ENV}`);
  if (!isAddress(market)) return kaminoError(400, 'Bad Request', 'params/market must be a valid public key');
  const found = fixture.lendingMarkets.find((m) => m.lendingMarket === market);
  if (found === undefined) return kaminoError(404, 'Not Found', `Market ${market} not found`);
  const rows = found.reserves.map((r) => reserveMetrics(r, book)).filter((r) => r !== null);
  return reply(200, rows);
}

/**
 * Stand-in for Jupiter's Swap API v1 quote, `GET /swap/v1/quote`, answered from the localnet's own
 * constant-product pool reserves.
 *
 * Response shape followed (Jupiter Swap API v1 / Metis quote, as documented at
 * dev.jup.ag/docs/api/swap-api/quote and typed by its public clients): `inputMint`, `inAmount`,
 * `outputMint`, `outAmount`, `otherAmountThreshold`, `swapMode`, `slippageBps`, `platformFee`,
 * `priceImpactPct` (decimal fraction as a string), `routePlan[].swapInfo` {ammKey, label,
 * inputMint, outputMint, inAmount, outAmount, feeAmount, feeMint} with `percent`, `contextSlot`,
 * `timeTaken` (seconds), plus `swapUsdValue` which current responses carry.
 * Errors: HTTP 400 with `{ error, errorCode }` using Jupiter's codes (`COULD_NOT_FIND_ANY_ROUTE`,
 * `TOKEN_NOT_TRADABLE`, `CIRCULAR_ARBITRAGE_IS_DISABLED`, `NOT_SUPPORTED`) and `INVALID_REQUEST`
 * for unparsable query parameters.
 */
import { performance } from 'node:perf_hooks';
import type { PoolReader } from '../chain/types.ts';
import { fractionToDecimalString, minOutWithSlippage, toUiAmount } from './cp-quote.ts';
import { findBestRoute, type Route } from './market-route.ts';
import { createPriceBook } from './market-prices.ts';
import { decimalString, isAddress, parseUint, reply, type JsonReply, type MarketRequest } from './market-http.ts';

/** Jupiter's default slippage when the caller sends none. */
export const DEFAULT_SLIPPAGE_BPS = 50;
/** Largest slippage accepted (100 %). */
export const MAX_SLIPPAGE_BPS = 10_000;
const U64_MAX = (1n << 64n) - 1n;

interface QuoteParams {
  readonly inputMint: string;
  readonly outputMint: string;
  readonly amount: bigint;
  readonly slippageBps: number;
  readonly onlyDirectRoutes: boolean;
}

function jupiterError(error: string, errorCode: string): JsonReply {
  return reply(400, { error, errorCode });
}

function invalid(message: string): JsonReply {
  return jupiterError(message, 'INVALID_REQUEST');
}

function parseMint(query: URLSearchParams, name: 'inputMint' | 'outputMint'): string | JsonReply {
  const value = query.get(name);
  if (value === null) return invalid(`Failed to deserialize query string: missing field \`${name}\``);
  if (!isAddress(value)) return invalid(`Query parameter ${name} cannot be parsed: Invalid Base58 string`);
  return value;
}

function parseAmount(query: URLSearchParams): bigint | JsonReply {
  const value = query.get('amount');
  if (value === null) return invalid('Failed to deserialize query string: missing field `amount`');
  const amount = parseUint(value);
  if (amount === null || amount > U64_MAX) return invalid('Query parameter amount cannot be parsed: ParseIntError { kind: InvalidDigit }');
  if (amount === 0n) return invalid('Query parameter amount must be greater than 0');
  return amount;
}

function parseSlippage(query: URLSearchParams): number | JsonReply {
  const value = query.get('slippageBps');
  if (value === null) return DEFAULT_SLIPPAGE_BPS;
  const bps = parseUint(value);
  if (bps === null || bps > BigInt(MAX_SLIPPAGE_BPS)) return invalid('Query parameter slippageBps cannot be parsed: must be an integer between 0 and 10000');
  return Number(bps);
}

function parseBool(query: URLSearchParams, name: string): boolean | JsonReply {
  const value = query.get(name);
  if (value === null || value === 'false') return false;
  if (value === 'true') return true;
  return invalid(`Query parameter ${name} cannot be parsed: provided string was not \`true\` or \`false\``);
}

function isReply(v: unknown): v is JsonReply {
  return typeof v === 'object' && v !== null && 'status' in v && 'body' in v;
}

function parseQuoteParams(query: URLSearchParams): QuoteParams | JsonReply {
  const inputMint = parseMint(query, 'inputMint');
  if (isReply(inputMint)) return inputMint;
  const outputMint = parseMint(query, 'outputMint');
  if (isReply(outputMint)) return outputMint;
  const amount = parseAmount(query);
  if (isReply(amount)) return amount;
  const slippageBps = parseSlippage(query);
  if (isReply(slippageBps)) return slippageBps;
  const swapMode = query.get('swapMode') ?? 'ExactIn';
  if (swapMode === 'ExactOut') return jupiterError('ExactOut is not supported by the localnet pools', 'NOT_SUPPORTED');
  if (swapMode !== 'ExactIn')
    return invalid(`Query parameter swapMode cannot be parsed: unknown variant \`${swapMode}\`, expected \`ExactIn\` or \`ExactOut\``);
  const onlyDirectRoutes = parseBool(query, 'onlyDirectRoutes');
  if (isReply(onlyDirectRoutes)) return onlyDirectRoutes;
  return { inputMint, outputMint, amount, slippageBps, onlyDirectRoutes };
}

function routePlan(route: Route): unknown[] {
  return route.hops.map((hop) => ({
    swapInfo: {
      ammKey: hop.pool.address,
      label: hop.pool.label,
      inputMint: hop.inputMint,
      outputMint: hop.outputMint,
      inAmount: hop.amountIn.toString(),
      outAmount: hop.amountOut.toString(),
      feeAmount: hop.feeAmount.toString(),
      feeMint: hop.inputMint,
    },
    percent: 100,
  }));
}

/** Answers `GET /swap/v1/quote` against the pools as they are on chain right now. */
export function handleJupiterQuote(pools: PoolReader, req: MarketRequest): JsonReply {
  const started = performance.now();
  const params = parseQuoteParams(req.query);
  if (isReply(params)) return params;
  if (params.inputMint === params.outputMint) {
    return jupiterError('Input and output mints are not allowed to be equal', 'CIRCULAR_ARBITRAGE_IS_DISABLED');
  }
  const snapshot = pools.pools();
  const contextSlot = pools.slot();
  const route = findBestRoute(snapshot, params.inputMint, params.outputMint, params.amount, params);
  if (route === 'TOKEN_NOT_TRADABLE') {
    const mint = snapshot.some((p) => p.mintA === params.inputMint || p.mintB === params.inputMint) ? params.outputMint : params.inputMint;
    return jupiterError(`The token ${mint} is not tradable`, 'TOKEN_NOT_TRADABLE');
  }
  if (route === 'COULD_NOT_FIND_ANY_ROUTE') return jupiterError('Could not find any route', 'COULD_NOT_FIND_ANY_ROUTE');
  const first = route.hops[0];
  const inDecimals = first === undefined ? 0 : first.pool.mintA === params.inputMint ? first.pool.decimalsA : first.pool.decimalsB;
  const inputUsd = createPriceBook(snapshot).usdPrice(params.inputMint);
  return reply(200, {
    inputMint: params.inputMint,
    inAmount: params.amount.toString(),
    outputMint: params.outputMint,
    outAmount: route.amountOut.toString(),
    otherAmountThreshold: minOutWithSlippage(route.amountOut, params.slippageBps).toString(),
    swapMode: 'ExactIn',
    slippageBps: params.slippageBps,
    platformFee: null,
    priceImpactPct: fractionToDecimalString(route.impact),
    routePlan: routePlan(route),
    ...(inputUsd === null ? {} : { swapUsdValue: decimalString(toUiAmount(params.amount, inDecimals) * inputUsd) }),
    contextSlot: Number(contextSlot),
    timeTaken: (performance.now() - started) / 1000,
  });
}

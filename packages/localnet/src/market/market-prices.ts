/**
 * USD prices of the localnet's mints, read off the pools' on-chain reserves.
 *
 * USDC is the unit of account (1 USD by definition). A mint paired with USDC is priced by its
 * deepest USDC pool; a mint with no USDC pool is priced through its deepest pool against a mint
 * that is (e.g. BONK via BONK/SOL and SOL/USDC). Anything further away has no price (null): the
 * stand-ins report unknown rather than guess.
 */
import type { PoolState } from '../chain/types.ts';
import { toUiAmount } from './cp-quote.ts';

/** Mainnet USDC mint, which the localnet recreates at its real address. */
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** Mainnet USDT mint. */
export const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
/** Wrapped SOL mint. */
export const WSOL_MINT = 'So11111111111111111111111111111111111111112';

/** Quote-side preference when naming a pool "BASE / QUOTE": earlier wins the quote side. */
export const QUOTE_PRIORITY: readonly string[] = [USDC_MINT, USDT_MINT, WSOL_MINT];

export interface PriceBook {
  /** USD per whole token of `mint`, or null when no pool path to USDC exists. */
  usdPrice(mint: string): number | null;
}

interface Side {
  readonly mint: string;
  readonly ui: number;
}

function sides(pool: PoolState): readonly [Side, Side] {
  return [
    { mint: pool.mintA, ui: toUiAmount(pool.reserveA, pool.decimalsA) },
    { mint: pool.mintB, ui: toUiAmount(pool.reserveB, pool.decimalsB) },
  ];
}

/**
 * Prices every mint one step from the already-priced set, each through the pool whose priced side
 * holds the most USD (the deepest, hardest to skew).
 */
function priceOneStep(pools: readonly PoolState[], priced: Map<string, number>): Map<string, number> {
  const best = new Map<string, { price: number; depthUsd: number }>();
  for (const pool of pools) {
    const [a, b] = sides(pool);
    for (const [known, unknown] of [
      [a, b],
      [b, a],
    ] as const) {
      const knownUsd = priced.get(known.mint);
      if (knownUsd === undefined || priced.has(unknown.mint) || unknown.ui <= 0 || known.ui <= 0) continue;
      const depthUsd = known.ui * knownUsd;
      const current = best.get(unknown.mint);
      if (current === undefined || depthUsd > current.depthUsd) {
        best.set(unknown.mint, { price: depthUsd / unknown.ui, depthUsd });
      }
    }
  }
  return new Map([...best].map(([mint, v]) => [mint, v.price]));
}

/** Builds the USD price table from a snapshot of pools (two steps away from USDC at most). */
export function createPriceBook(pools: readonly PoolState[]): PriceBook {
  const priced = new Map<string, number>([[USDC_MINT, 1]]);
  for (let step = 0; step < 2; step++) {
    for (const [mint, price] of priceOneStep(pools, priced)) priced.set(mint, price);
  }
  return { usdPrice: (mint) => priced.get(mint) ?? null };
}

/** Which mint of a pool is the quote (priced-in) side, by `QUOTE_PRIORITY`, else mintB. */
export function quoteMintOf(pool: PoolState): string {
  const rank = (mint: string): number => {
    const i = QUOTE_PRIORITY.indexOf(mint);
    return i === -1 ? QUOTE_PRIORITY.length : i;
  };
  return rank(pool.mintA) < rank(pool.mintB) ? pool.mintA : pool.mintB;
}

/** The base side of a pool (the one that is not the quote). */
export function baseMintOf(pool: PoolState): string {
  return quoteMintOf(pool) === pool.mintA ? pool.mintB : pool.mintA;
}

/** Price of one whole base token in quote tokens from raw reserves, null when a side is empty. */
export function basePriceInQuote(pool: PoolState, reserveA: bigint = pool.reserveA, reserveB: bigint = pool.reserveB): number | null {
  const uiA = toUiAmount(reserveA, pool.decimalsA);
  const uiB = toUiAmount(reserveB, pool.decimalsB);
  if (uiA <= 0 || uiB <= 0) return null;
  return baseMintOf(pool) === pool.mintA ? uiB / uiA : uiA / uiB;
}

/**
 * Pool liquidity in USD: both sides at their USD prices; when only one side is priced, twice that
 * side (a constant-product pool holds equal value on both sides at its own price).
 */
export function reserveUsd(pool: PoolState, book: PriceBook): number | null {
  const [a, b] = sides(pool);
  const pa = book.usdPrice(a.mint);
  const pb = book.usdPrice(b.mint);
  if (pa !== null && pb !== null) return a.ui * pa + b.ui * pb;
  if (pa !== null) return 2 * a.ui * pa;
  if (pb !== null) return 2 * b.ui * pb;
  return null;
}

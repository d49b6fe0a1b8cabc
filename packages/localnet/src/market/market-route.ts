/**
 * Route search over the localnet's constant-product pools: the direct pools of a pair and every
 * two-hop path through one intermediate mint (e.g. X -> SOL -> USDC), keeping the route with the
 * largest output, as an aggregator would. Pure: the caller passes the pools read from chain.
 */
import type { PoolState } from '../chain/types.ts';
import { combineImpacts, cpSwapExactIn, type Fraction } from './cp-quote.ts';

/** One hop of a route: which pool, which direction, and what it does to the amounts. */
export interface RouteHop {
  readonly pool: PoolState;
  readonly inputMint: string;
  readonly outputMint: string;
  readonly amountIn: bigint;
  readonly amountOut: bigint;
  readonly feeAmount: bigint;
}

export interface Route {
  readonly hops: readonly RouteHop[];
  readonly amountOut: bigint;
  readonly impact: Fraction;
}

/** Why no route came back, mirroring the aggregator's error codes. */
export type RouteFailure = 'TOKEN_NOT_TRADABLE' | 'COULD_NOT_FIND_ANY_ROUTE';

export interface FindRouteOptions {
  readonly onlyDirectRoutes: boolean;
}

/** Returns the mint on the other side of `pool` from `mint`, or null when the pool lacks `mint`. */
export function otherMint(pool: PoolState, mint: string): string | null {
  if (pool.mintA === mint) return pool.mintB;
  if (pool.mintB === mint) return pool.mintA;
  return null;
}

/** Simulates one ExactIn hop through `pool` from `inputMint`. */
export function swapHop(pool: PoolState, inputMint: string, amountIn: bigint): RouteHop & { readonly impact: Fraction } {
  const aToB = pool.mintA === inputMint;
  const [reserveIn, reserveOut] = aToB ? [pool.reserveA, pool.reserveB] : [pool.reserveB, pool.reserveA];
  const r = cpSwapExactIn(reserveIn, reserveOut, amountIn, pool.feeBps);
  return {
    pool,
    inputMint,
    outputMint: aToB ? pool.mintB : pool.mintA,
    amountIn,
    amountOut: r.amountOut,
    feeAmount: r.feeAmount,
    impact: r.impact,
  };
}

function routeOf(hops: readonly (RouteHop & { readonly impact: Fraction })[]): Route {
  const last = hops[hops.length - 1];
  return {
    hops: hops.map(({ impact: _impact, ...hop }) => hop),
    amountOut: last === undefined ? 0n : last.amountOut,
    impact: combineImpacts(hops.map((h) => h.impact)),
  };
}

/** Better = more output; on a tie, fewer hops, then the lexically smaller pool path (determinism). */
function isBetter(candidate: Route, best: Route | null): boolean {
  if (best === null) return true;
  if (candidate.amountOut !== best.amountOut) return candidate.amountOut > best.amountOut;
  if (candidate.hops.length !== best.hops.length) return candidate.hops.length < best.hops.length;
  return pathKey(candidate) < pathKey(best);
}

function pathKey(route: Route): string {
  return route.hops.map((h) => h.pool.address).join('/');
}

function directRoutes(pools: readonly PoolState[], inputMint: string, outputMint: string, amount: bigint): Route[] {
  return pools.filter((p) => otherMint(p, inputMint) === outputMint).map((p) => routeOf([swapHop(p, inputMint, amount)]));
}

function twoHopRoutes(pools: readonly PoolState[], inputMint: string, outputMint: string, amount: bigint): Route[] {
  const routes: Route[] = [];
  for (const first of pools) {
    const mid = otherMint(first, inputMint);
    if (mid === null || mid === outputMint) continue;
    const hop1 = swapHop(first, inputMint, amount);
    if (hop1.amountOut === 0n) continue;
    for (const second of pools) {
      if (second === first || otherMint(second, mid) !== outputMint) continue;
      routes.push(routeOf([hop1, swapHop(second, mid, hop1.amountOut)]));
    }
  }
  return routes;
}

/**
 * Finds the best ExactIn route for `amount` of `inputMint` into `outputMint`, or the reason there
 * is none. A route whose output rounds to zero is no route.
 */
export function findBestRoute(
  pools: readonly PoolState[],
  inputMint: string,
  outputMint: string,
  amount: bigint,
  options: FindRouteOptions,
): Route | RouteFailure {
  const tradable = (mint: string): boolean => pools.some((p) => otherMint(p, mint) !== null);
  if (!tradable(inputMint) || !tradable(outputMint)) return 'TOKEN_NOT_TRADABLE';
  const candidates = directRoutes(pools, inputMint, outputMint, amount);
  if (!options.onlyDirectRoutes) candidates.push(...twoHopRoutes(pools, inputMint, outputMint, amount));
  let best: Route | null = null;
  for (const c of candidates) if (c.amountOut > 0n && isBetter(c, best)) best = c;
  return best ?? 'COULD_NOT_FIND_ANY_ROUTE';
}

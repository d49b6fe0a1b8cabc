import { describe, expect, it } from 'vitest';
import type { PoolState } from '../../src/chain/types.ts';
import { findBestRoute } from '../../src/market/market-route.ts';

function pool(address: string, mintA: string, mintB: string, reserveA: bigint, reserveB: bigint, feeBps = 0): PoolState {
  return {
    address,
    label: 'Test AMM',
    mintA,
    mintB,
    vaultA: `${address}-a`,
    vaultB: `${address}-b`,
    decimalsA: 0,
    decimalsB: 0,
    reserveA,
    reserveB,
    feeBps,
    createdAt: 0,
  };
}

const options = { onlyDirectRoutes: false };

describe('findBestRoute', () => {
  it('goes through an intermediate mint when no direct pool exists', () => {
    const pools = [pool('p1', 'X', 'S', 1000n, 1000n), pool('p2', 'S', 'U', 1000n, 2000n)];
    const r = findBestRoute(pools, 'X', 'U', 100n, options);
    if (typeof r === 'string') throw new Error(r);
    // 100 X -> floor(100*1000/1100) = 90 S -> floor(90*2000/1090) = 165 U
    expect(r.hops.map((h) => [h.pool.address, h.inputMint, h.outputMint, h.amountIn, h.amountOut])).toEqual([
      ['p1', 'X', 'S', 100n, 90n],
      ['p2', 'S', 'U', 90n, 165n],
    ]);
    expect(r.amountOut).toBe(165n);
  });

  it('picks the route paying the most, including a two-hop beating a shallow direct pool', () => {
    const pools = [pool('direct', 'X', 'U', 10n, 20n), pool('p1', 'X', 'S', 1000n, 1000n), pool('p2', 'S', 'U', 1000n, 2000n)];
    const best = findBestRoute(pools, 'X', 'U', 100n, options);
    if (typeof best === 'string') throw new Error(best);
    expect(best.hops).toHaveLength(2);
    const direct = findBestRoute(pools, 'X', 'U', 100n, { onlyDirectRoutes: true });
    if (typeof direct === 'string') throw new Error(direct);
    expect(direct.hops.map((h) => h.pool.address)).toEqual(['direct']);
  });

  it('trades in either direction of a pool', () => {
    const r = findBestRoute([pool('p', 'A', 'B', 1000n, 4000n)], 'B', 'A', 400n, options);
    if (typeof r === 'string') throw new Error(r);
    expect(r.amountOut).toBe(90n); // floor(400*1000/4400)
  });

  it('names why there is no route', () => {
    const pools = [pool('p1', 'X', 'S', 1000n, 1000n), pool('p2', 'Y', 'U', 1000n, 1000n)];
    expect(findBestRoute(pools, 'X', 'U', 10n, options)).toBe('COULD_NOT_FIND_ANY_ROUTE');
    expect(findBestRoute(pools, 'Q', 'U', 10n, options)).toBe('TOKEN_NOT_TRADABLE');
    expect(findBestRoute([pool('p', 'A', 'B', 1_000_000n, 1n)], 'A', 'B', 1n, options)).toBe('COULD_NOT_FIND_ANY_ROUTE');
  });
});

import { describe, expect, it } from 'vitest';
import type { PoolState } from '../../src/chain/types.ts';
import { createPoolActivity, HISTORY_SECONDS, MAX_TRADERS_PER_BUCKET } from '../../src/market/pool-activity.ts';
import { USDC_MINT, WSOL_MINT } from '../../src/market/market-prices.ts';
import { buildSwapTransaction, syntheticAddress } from '../fixtures/synthetic-pool-chain.ts';

const T0 = 1_750_000_000;
// 1000 SOL / 150000 USDC: base SOL at 150 USDC.
const SOL_USDC: PoolState = {
  address: syntheticAddress('pool:sol-usdc'),
  label: 'Raydium',
  mintA: WSOL_MINT,
  mintB: USDC_MINT,
  vaultA: syntheticAddress('vault:sol'),
  vaultB: syntheticAddress('vault:usdc'),
  decimalsA: 9,
  decimalsB: 6,
  reserveA: 1_000_000_000_000n,
  reserveB: 150_000_000_000n,
  feeBps: 25,
  createdAt: T0 - 3600,
};

function swapTx(pool: PoolState, postA: bigint, postB: bigint, blockTime: number, trader = 'trader-1', err: unknown = null) {
  return buildSwapTransaction(pool, { pool: pool.address, trader, postA, postB, blockTime, err }, 1n, 0);
}

describe('createPoolActivity', () => {
  it('reports zeros and no price change before any swap', () => {
    const s = createPoolActivity().stats(SOL_USDC, 1, T0);
    expect(s.h24).toEqual({ buys: 0, sells: 0, buyers: 0, sellers: 0, volumeUsd: 0, priceChangePct: 0 });
  });

  it('classifies a buy of the base from the vaults and measures its USD size and price move', () => {
    const activity = createPoolActivity();
    // Trader pays 1500 USDC, takes 9.9 SOL: USDC vault up, SOL vault down -> buy of SOL.
    const after = { ...SOL_USDC, reserveA: 990_100_000_000n, reserveB: 151_500_000_000n };
    activity.observe(swapTx(SOL_USDC, after.reserveA, after.reserveB, T0), [SOL_USDC]);
    const s = activity.stats(after, 1, T0 + 30);
    expect(s.m5).toMatchObject({ buys: 1, sells: 0, buyers: 1, sellers: 0 });
    expect(s.m5.volumeUsd).toBeCloseTo(1500, 9);
    const expectedPct = (151_500 / 990.1 / 150 - 1) * 100;
    expect(s.h24.priceChangePct).toBeCloseTo(expectedPct, 9);
  });

  it('ignores failed transactions and liquidity moving both vaults the same way', () => {
    const activity = createPoolActivity();
    activity.observe(swapTx(SOL_USDC, 990_000_000_000n, 151_500_000_000n, T0, 't', { InstructionError: [0, { Custom: 1 }] }), [SOL_USDC]);
    activity.observe(swapTx(SOL_USDC, 1_100_000_000_000n, 165_000_000_000n, T0), [SOL_USDC]);
    expect(activity.stats(SOL_USDC, 1, T0).h24.buys + activity.stats(SOL_USDC, 1, T0).h24.sells).toBe(0);
  });

  it('moves swaps out of the short windows as time passes and forgets them after 24 h', () => {
    const activity = createPoolActivity();
    const after = { ...SOL_USDC, reserveA: 1_010_000_000_000n, reserveB: 148_600_000_000n };
    activity.observe(swapTx(SOL_USDC, after.reserveA, after.reserveB, T0, 'seller'), [SOL_USDC]);
    const at = (dt: number) => activity.stats(after, 1, T0 + dt);
    expect(at(60).m5.sells).toBe(1);
    expect(at(600).m5.sells).toBe(0);
    expect(at(600).m5.priceChangePct).toBe(0);
    expect(at(600).h1.sells).toBe(1);
    expect(at(600).h1.priceChangePct).toBeLessThan(0);
    expect(at(HISTORY_SECONDS + 120).h24.sells).toBe(0);
  });

  it('bounds memory: old minutes are dropped, the anchor keeps the h24 reference price', () => {
    const activity = createPoolActivity();
    let pool = SOL_USDC;
    for (let minute = 0; minute < 26 * 60; minute += 30) {
      const next = { ...pool, reserveA: pool.reserveA - 1_000_000_000n, reserveB: pool.reserveB + 150_000_000n };
      activity.observe(swapTx(pool, next.reserveA, next.reserveB, T0 + minute * 60), [pool]);
      pool = next;
    }
    const s = activity.stats(pool, 1, T0 + 26 * 3600);
    expect(s.h24.buys).toBe(48);
    expect(s.h24.priceChangePct).toBeGreaterThan(0);
  });

  it('caps distinct traders per minute', () => {
    const activity = createPoolActivity();
    let pool = SOL_USDC;
    for (let i = 0; i < MAX_TRADERS_PER_BUCKET + 10; i++) {
      const next = { ...pool, reserveA: pool.reserveA - 1000n, reserveB: pool.reserveB + 200n };
      activity.observe(swapTx(pool, next.reserveA, next.reserveB, T0, `trader-${i}`), [pool]);
      pool = next;
    }
    const s = activity.stats(pool, 1, T0);
    expect(s.m5.buys).toBe(MAX_TRADERS_PER_BUCKET + 10);
    expect(s.m5.buyers).toBe(MAX_TRADERS_PER_BUCKET);
  });
});

import { describe, expect, it } from 'vitest';
import type { PoolState } from '../../src/chain/types.ts';
import { baseMintOf, createPriceBook, reserveUsd, USDC_MINT, WSOL_MINT } from '../../src/market/market-prices.ts';

function pool(address: string, mintA: string, mintB: string, reserveA: bigint, reserveB: bigint, decimalsA: number, decimalsB: number): PoolState {
  return {
    address,
    label: 'AMM',
    mintA,
    mintB,
    vaultA: `${address}a`,
    vaultB: `${address}b`,
    decimalsA,
    decimalsB,
    reserveA,
    reserveB,
    feeBps: 25,
    createdAt: 0,
  };
}

const SOL_USDC = pool('p1', WSOL_MINT, USDC_MINT, 1_000_000_000_000n, 150_000_000_000n, 9, 6);
const BONK_SOL = pool('p2', 'BONK', WSOL_MINT, 100_000_000_000_000n, 100_000_000_000n, 5, 9);
const FAR = pool('p3', 'FAR', 'BONK', 1_000n, 1_000n, 0, 5);

describe('createPriceBook', () => {
  it('prices USDC at 1, direct USDC pairs from reserves, and one more hop through them', () => {
    const book = createPriceBook([SOL_USDC, BONK_SOL]);
    expect(book.usdPrice(USDC_MINT)).toBe(1);
    expect(book.usdPrice(WSOL_MINT)).toBeCloseTo(150, 12);
    // 1e9 BONK against 100 SOL: 1e-7 SOL = 1.5e-5 USD
    expect(book.usdPrice('BONK')).toBeCloseTo(1.5e-5, 15);
  });

  it('leaves mints more than two pools from USDC unpriced', () => {
    expect(createPriceBook([SOL_USDC, BONK_SOL, FAR]).usdPrice('FAR')).toBeNull();
    expect(createPriceBook([BONK_SOL]).usdPrice(WSOL_MINT)).toBeNull();
  });

  it('prefers the deepest pool when several price a mint', () => {
    const shallow = pool('p0', WSOL_MINT, USDC_MINT, 1_000_000_000n, 100_000_000n, 9, 6); // 100 USD/SOL, tiny
    expect(createPriceBook([shallow, SOL_USDC]).usdPrice(WSOL_MINT)).toBeCloseTo(150, 12);
  });
});

describe('pool sides and liquidity', () => {
  it('quotes against USDC, then SOL', () => {
    expect(baseMintOf(SOL_USDC)).toBe(WSOL_MINT);
    expect(baseMintOf(BONK_SOL)).toBe('BONK');
  });

  it('values both sides, or twice the priced side', () => {
    const book = createPriceBook([SOL_USDC, BONK_SOL]);
    expect(reserveUsd(SOL_USDC, book)).toBeCloseTo(300_000, 6);
    expect(reserveUsd(BONK_SOL, book)).toBeCloseTo(30_000, 6);
    expect(reserveUsd(FAR, createPriceBook([FAR]))).toBeNull();
  });
});

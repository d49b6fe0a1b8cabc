/**
 * Pure market math: impact bands at their thresholds, minReceived, sizes from multipliers, and
 * the slippage curve (bands, rate drop, depth under 1 % / 5 %, unknown points).
 */
import { describe, expect, it } from 'vitest';
import { impactBand, minReceived, sizeForMult, slippageCurve, fractionToPct, type CurveInputPoint } from '../../../src/intel/market/market-math.ts';
import { parseRetryAfter } from '../../../src/market-apis/market-http.ts';
import { marketTvlUsd } from '../../../src/market-apis/lending-client.ts';
import { foldSales } from '../../../src/market-apis/magiceden-client.ts';

describe('impactBand', () => {
  it('splits at 0.1 %, 1 % and 5 % (lower bound inclusive)', () => {
    expect([0, 0.0999, 0.1, 0.999, 1, 4.999, 5, 60].map(impactBand)).toEqual(['minimal', 'minimal', 'low', 'low', 'moderate', 'moderate', 'high', 'high']);
  });
  it('reads Jupiter fractions as percent', () => {
    expect(fractionToPct(0.0123)).toBeCloseTo(1.23, 12);
    expect(fractionToPct(-0.0001)).toBe(0);
  });
});

describe('minReceived', () => {
  it('floors out * (10000 - bps) / 10000', () => {
    expect(minReceived(149_475_897n, 50)).toBe(148_728_517n);
    expect(minReceived(999n, 1)).toBe(998n);
    expect(minReceived(123n, 0)).toBe(123n);
    expect(minReceived(123n, 10_000)).toBe(0n);
    expect(minReceived((1n << 64n) - 1n, 5000)).toBe(((1n << 64n) - 1n) / 2n);
  });
  it('refuses slippage outside 0-10000', () => {
    expect(() => minReceived(1n, -1)).toThrow(RangeError);
    expect(() => minReceived(1n, 10_001)).toThrow(RangeError);
    expect(() => minReceived(1n, 1.5)).toThrow(RangeError);
  });
});

describe('sizeForMult', () => {
  it('is exact for decimal multipliers and floors', () => {
    expect(sizeForMult(1_000_000_000n, 0.1)).toBe(100_000_000n);
    expect(sizeForMult(1_000_000_000n, 100)).toBe(100_000_000_000n);
    expect(sizeForMult(7n, 0.5)).toBe(3n);
    expect(sizeForMult(3n, 0.1)).toBe(0n);
    expect(sizeForMult(10_000_000_000_000_000_000n, 10_000)).toBe(100_000_000_000_000_000_000_000n);
  });
  it('rejects non-positive multipliers', () => {
    expect(() => sizeForMult(1n, 0)).toThrow(RangeError);
    expect(() => sizeForMult(1n, Number.NaN)).toThrow(RangeError);
  });
});

const point = (mult: number, size: number, out: number | null, impact: number | null, usd: number | null, error: string | null = null): CurveInputPoint => ({
  mult,
  sizeBaseUnits: String(size),
  outAmount: out === null ? null : String(out),
  priceImpactFraction: impact,
  swapUsdValue: usd,
  contextSlot: out === null ? null : 7,
  hops: out === null ? null : 1,
  error,
});

describe('slippageCurve', () => {
  it('bands each point, measures rate drop and finds depth under 1 % and 5 %', () => {
    const out = slippageCurve({
      points: [
        point(0.1, 100, 15_000, 0.0001, 15),
        point(1, 1000, 149_000, 0.002, 150),
        point(10, 10_000, 1_450_000, 0.03, 1500),
        point(100, 100_000, 12_000_000, 0.2, 15_000),
      ],
    });
    expect(out.points.map((p) => p.band)).toEqual(['minimal', 'low', 'moderate', 'high']);
    expect(out.points.map((p) => p.priceImpactPct)).toEqual([0.01, 0.2, 3, 20]);
    expect(out.points[0]!.rateDropVsSmallestPct).toBe(0);
    expect(out.points[3]!.rateDropVsSmallestPct).toBeCloseTo(20, 9);
    expect(out.depth.under1pct).toEqual({ maxUsd: 150, sizeBaseUnits: '1000', mult: 1 });
    expect(out.depth.under5pct).toEqual({ maxUsd: 1500, sizeBaseUnits: '10000', mult: 10 });
  });

  it('keeps failed sizes as unknown with their error and leaves them out of depth', () => {
    const out = slippageCurve({ points: [point(1, 1000, 149_000, 0.002, null), point(1000, 1_000_000, null, null, null, 'not_found: no route')] });
    expect(out.points[1]).toMatchObject({
      outAmount: 'unknown',
      priceImpactPct: 'unknown',
      band: 'unknown',
      swapUsdValue: 'unknown',
      error: 'not_found: no route',
    });
    expect(out.depth.under1pct).toEqual({ maxUsd: 'unknown', sizeBaseUnits: '1000', mult: 1 });
  });

  it('reports null depth when no tested size is under the threshold', () => {
    const out = slippageCurve({ points: [point(1, 1000, 100, 0.07, 10)] });
    expect(out.depth.under1pct.maxUsd).toBeNull();
    expect(out.depth.under5pct.maxUsd).toBeNull();
  });
});

describe('source arithmetic', () => {
  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
  });
  it('lending TVL is supply minus borrows per reserve, never negative', () => {
    expect(
      marketTvlUsd([
        { reserve: 'a', symbol: 'USDC', totalSupplyUsd: 100, totalBorrowUsd: 60 },
        { reserve: 'b', symbol: 'SOL', totalSupplyUsd: 50, totalBorrowUsd: 70 },
      ]),
    ).toBe(40);
  });
  it('sums buyNow sales at or after the cutoff only', () => {
    const page = [
      { type: 'buyNow', blockTime: 200, priceLamports: 5 },
      { type: 'list', blockTime: 150, priceLamports: 99 },
      { type: 'buyNow', blockTime: 100, priceLamports: 7 },
      { type: 'buyNow', blockTime: 99, priceLamports: 1000 },
    ];
    expect(foldSales({ count: 0, lamports: 0 }, page, 100)).toEqual({ count: 2, lamports: 12, reachedCutoff: true });
    expect(foldSales({ count: 1, lamports: 1 }, page.slice(0, 2), 100)).toEqual({ count: 2, lamports: 6, reachedCutoff: false });
  });
});

import { describe, expect, it } from 'vitest';
import { combineImpacts, cpSwapExactIn, fractionToDecimalString, minOutWithSlippage } from '../../src/market/cp-quote.ts';

describe('cpSwapExactIn', () => {
  it('takes the fee from the input and floors the curve output (hand-computed)', () => {
    // 1 SOL into 1000 SOL / 150000 USDC at 25 bps: afterFee = 997_500_000,
    // out = floor(997_500_000 * 150e9 / (1e12 + 997_500_000)) = 149_475_897
    const r = cpSwapExactIn(1_000_000_000_000n, 150_000_000_000n, 1_000_000_000n, 25);
    expect(r.feeAmount).toBe(2_500_000n);
    expect(r.amountOut).toBe(149_475_897n);
    expect(r.impact).toEqual({ num: 997_500_000n, den: 1_000_997_500_000n });
  });

  it('keeps x*y non-decreasing (the pool never loses value to rounding)', () => {
    const [x, y] = [123_456_789n, 987_654_321n];
    for (const amount of [1n, 17n, 10_000n, 99_999_999n]) {
      const r = cpSwapExactIn(x, y, amount, 30);
      expect((x + amount) * (y - r.amountOut) >= x * y).toBe(true);
    }
  });

  it('pays nothing from an empty pool and rejects nonsense', () => {
    expect(cpSwapExactIn(0n, 0n, 0n, 25).amountOut).toBe(0n);
    expect(cpSwapExactIn(1000n, 0n, 10n, 25).amountOut).toBe(0n);
    expect(() => cpSwapExactIn(-1n, 1n, 1n, 25)).toThrow(RangeError);
    expect(() => cpSwapExactIn(1n, 1n, 1n, 10_001)).toThrow(RangeError);
    expect(() => cpSwapExactIn(1n, 1n, 1n, 2.5)).toThrow(RangeError);
  });

  it('a zero fee leaves the whole input on the curve', () => {
    const r = cpSwapExactIn(1000n, 1000n, 1000n, 0);
    expect(r.feeAmount).toBe(0n);
    expect(r.amountOut).toBe(500n);
  });
});

describe('combineImpacts', () => {
  it('multiplies what each hop keeps', () => {
    // keep 9/10 then 4/5 -> keep 36/50 -> impact 14/50
    const f = combineImpacts([
      { num: 1n, den: 10n },
      { num: 1n, den: 5n },
    ]);
    expect(f.num * 50n).toBe(14n * f.den);
  });

  it('of no hops is zero', () => {
    expect(combineImpacts([]).num).toBe(0n);
  });
});

describe('minOutWithSlippage', () => {
  it('floors out * (10000 - bps) / 10000', () => {
    expect(minOutWithSlippage(149_475_897n, 50)).toBe(148_728_517n);
    expect(minOutWithSlippage(149_475_897n, 0)).toBe(149_475_897n);
    expect(minOutWithSlippage(149_475_897n, 10_000)).toBe(0n);
    expect(() => minOutWithSlippage(1n, -1)).toThrow(RangeError);
  });
});

describe('fractionToDecimalString', () => {
  it('renders without exponent, truncated and trimmed', () => {
    expect(fractionToDecimalString({ num: 399n, den: 400_399n })).toBe('0.000996505985279683');
    expect(fractionToDecimalString({ num: 0n, den: 7n })).toBe('0');
    expect(fractionToDecimalString({ num: 1n, den: 4n })).toBe('0.25');
    expect(fractionToDecimalString({ num: 1n, den: 10n ** 30n })).toBe('0');
    expect(fractionToDecimalString({ num: 3n, den: 2n })).toBe('1.5');
  });
});

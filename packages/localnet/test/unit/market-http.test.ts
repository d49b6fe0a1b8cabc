import { describe, expect, it } from 'vitest';
import { base58ByteLength, decimalString, isAddress, parseUint } from '../../src/market/market-http.ts';
import { loadMarketFixture, parseMarketFixture } from '../../src/market/market-fixture.ts';

describe('decimalString', () => {
  it('never uses exponent notation and keeps 15 significant digits', () => {
    expect(decimalString(1.5e-8)).toBe('0.000000015');
    expect(decimalString(0.0000000021245208116085)).toBe('0.0000000021245208116085');
    expect(decimalString(150)).toBe('150');
    expect(decimalString(-0.5)).toBe('-0.5');
    expect(decimalString(0)).toBe('0');
    expect(decimalString(1e22)).toBe('10000000000000000000000');
    expect(() => decimalString(Number.NaN)).toThrow(RangeError);
  });
});

describe('address and integer parsing', () => {
  it('accepts 32-byte base58 addresses only', () => {
    expect(isAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
    expect(isAddress('11111111111111111111111111111111')).toBe(true);
    expect(isAddress('So11111111111111111111111111111111111111112')).toBe(true);
    expect(isAddress('EPjFWdd5AufqSSqeM2qN1xzyba')).toBe(false);
    expect(isAddress('5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW')).toBe(false);
    expect(isAddress('0PjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(false);
    expect(base58ByteLength('')).toBeNull();
  });

  it('parses plain unsigned integers only', () => {
    expect(parseUint('0012')).toBe(12n);
    for (const bad of ['', '-1', '1.0', '1e3', ' 1', '0x10']) expect(parseUint(bad)).toBeNull();
  });
});

describe('market fixture', () => {
  it('loads the committed fixture with consistent data', () => {
    const f = loadMarketFixture();
    expect(f.nftCollections.length).toBeGreaterThan(0);
    for (const c of f.nftCollections) expect(c.listings.length).toBeGreaterThan(0);
    const mints = new Set(f.tokens.map((t) => t.mint));
    for (const m of f.lendingMarkets) for (const r of m.reserves) expect(mints.has(r.liquidityTokenMint)).toBe(true);
  });

  it('rejects malformed fixtures naming the path', () => {
    expect(() => parseMarketFixture(null)).toThrow(/\$/);
    expect(() =>
      parseMarketFixture({
        tokens: [],
        nftCollections: [{ symbol: 'a', name: 'A', listings: [{ tokenMint: 'x', seller: 'y', priceLamports: '1' }], sales: [] }],
        lendingMarkets: [],
      }),
    ).toThrow(/nftCollections\[0\]\.listings\[0\]/);
  });
});

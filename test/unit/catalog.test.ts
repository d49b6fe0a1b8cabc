import { describe, expect, it } from 'vitest';
import { CATALOG, formatUsd } from '../../src/catalog/endpoints.ts';
import { validateQuery } from '../../src/catalog/validate-query.ts';

/** SPEC 4.1, transcribed independently of the catalog. */
export const SPEC_PRICES: Readonly<Record<string, [number, string]>> = {
  '/v1/smri': [10000, '$0.01'],
  '/v1/simulate': [10000, '$0.01'],
  '/v1/decision': [50000, '$0.05'],
  '/v1/token-holders': [5000, '$0.005'],
  '/v1/slippage-map': [5000, '$0.005'],
  '/v1/tipfloor': [1000, '$0.001'],
  '/v1/epoch': [1000, '$0.001'],
  '/v1/lending/markets': [1000, '$0.001'],
  '/v1/sgp-checkpoint': [5000, '$0.005'],
  '/v1/token-risk': [28000, '$0.028'],
  '/v1/wallet-scan': [20000, '$0.02'],
  '/v1/token-intel': [50000, '$0.05'],
  '/v1/batch/token-risk': [100000, '$0.10'],
  '/v1/priority-fee': [2000, '$0.002'],
  '/v1/dex-quote': [3000, '$0.003'],
  '/v1/trending-tokens': [5000, '$0.005'],
  '/v1/new-pairs': [5000, '$0.005'],
  '/v1/nft-collection': [3000, '$0.003'],
  '/v1/tx-inspect': [10000, '$0.01'],
  '/v1/pretrade': [100000, '$0.10'],
};

const CATEGORIES = new Set(['intelligence', 'execution', 'timing', 'defi', 'market', 'forensics']);

describe('catalog', () => {
  it('has exactly the 20 SPEC endpoints at SPEC prices', () => {
    expect(CATALOG.map((e) => e.path).sort()).toEqual(Object.keys(SPEC_PRICES).sort());
    for (const e of CATALOG) {
      expect(e.priceUnits, e.path).toBe(SPEC_PRICES[e.path]![0]);
      expect(formatUsd(e.priceUnits), e.path).toBe(SPEC_PRICES[e.path]![1]);
    }
  });

  it('gives every entry a category, tags, description and an example that validates', () => {
    for (const e of CATALOG) {
      expect(CATEGORIES.has(e.category), e.path).toBe(true);
      expect(e.tags.length, e.path).toBeGreaterThan(0);
      expect(e.description.length, e.path).toBeGreaterThan(20);
      const result = validateQuery(e, new URLSearchParams(e.example as Record<string, string>).toString());
      expect(result, e.path).toMatchObject({ ok: true });
    }
  });

  it('formats prices as the shortest exact dollar amount with two decimals at least', () => {
    expect(formatUsd(1)).toBe('$0.000001');
    expect(formatUsd(1_000_000)).toBe('$1.00');
    expect(formatUsd(1_230_000)).toBe('$1.23');
  });
});

import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { formatUsd } from '../../src/catalog/format-usd.ts';
import { validateQuery } from '../../src/catalog/validate-query.ts';
import { SPEC_PRICES } from '../fixtures/spec-prices.ts';

const CATEGORIES = new Set(['intelligence', 'execution', 'timing', 'defi', 'market', 'forensics']);

describe('catalog', () => {
  it('has exactly the 20 contract endpoints at contract prices', () => {
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

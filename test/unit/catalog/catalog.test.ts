import { describe, expect, it } from 'vitest';
import { CATALOG, CATALOG_BY_PATH } from '../../../src/catalog/endpoints.ts';
import { formatUsd } from '../../../src/catalog/format-usd.ts';
import { validateQuery } from '../../../src/catalog/validate-query.ts';
import { SPEC_PRICES } from '../../fixtures/spec-prices.ts';

const CATEGORIES = new Set(['intelligence', 'execution', 'timing', 'defi', 'market', 'forensics']);

describe('catalog', () => {
  it('sells every endpoint of the contract at its contract price', () => {
    for (const [path, [units, usd]] of Object.entries(SPEC_PRICES)) {
      const e = CATALOG_BY_PATH.get(path);
      expect(e?.priceUnits, path).toBe(units);
      expect(formatUsd(e!.priceUnits), path).toBe(usd);
    }
  });

  it('lists each path once', () => {
    expect(new Set(CATALOG.map((e) => e.path)).size).toBe(CATALOG.length);
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

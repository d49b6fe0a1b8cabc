/**
 * Which early answers are handed off (docs/payments.md#the-hand-off): only a payer whose confirmed
 * value covers what all its answers in flight, this one included, would lose if each failed.
 */
import { describe, expect, it } from 'vitest';
import { handOffCovered } from '../../../src/x402/stores/early-bounds.ts';

const SHARE = { units: 1_000, feeUnits: 5_001, trusted: true };
const idle = { inFlightUnits: 0, inFlightCount: 0 };

describe('handOffCovered', () => {
  it('needs history: a payer without any keeps the preflight, whatever it holds', () => {
    expect(handOffCovered({ ...idle, trustUnits: 0 }, { ...SHARE, trusted: false })).toBe(false);
  });

  it('covers one answer in flight from its price and fee: 6,001 confirmed units, not 6,000', () => {
    expect(handOffCovered({ ...idle, trustUnits: 6_001 }, SHARE)).toBe(true);
    expect(handOffCovered({ ...idle, trustUnits: 6_000 }, SHARE)).toBe(false);
    // Two confirmed calls earn an answer in flight (half their value) but do not cover its loss.
    expect(handOffCovered({ ...idle, trustUnits: 2_000 }, SHARE)).toBe(false);
  });

  it('counts every answer already in flight, each with its fee', () => {
    const three = { inFlightUnits: 3_000, inFlightCount: 3 };
    expect(handOffCovered({ ...three, trustUnits: 4 * 6_001 }, SHARE)).toBe(true);
    expect(handOffCovered({ ...three, trustUnits: 4 * 6_001 - 1 }, SHARE)).toBe(false);
  });
});

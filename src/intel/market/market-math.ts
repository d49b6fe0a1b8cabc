/**
 * Pure market math: price-impact bands, minimum received at a slippage, sizes from multipliers,
 * and the slippage curve (per-point impact, bands, depth under 1 % / 5 %). The curve runs in the
 * worker pool as the `slippageCurve` task; everything here takes and returns plain data.
 */

/** Band upper bounds in percent of price impact (exclusive): below 0.1 minimal, 1 low, 5 moderate, else high. */
export const IMPACT_BAND_THRESHOLDS_PCT = { minimal: 0.1, low: 1, moderate: 5 } as const;
/** Depth thresholds in percent of price impact: the largest tested size strictly under each. */
export const DEPTH_THRESHOLDS_PCT = { under1pct: 1, under5pct: 5 } as const;
export const BPS_DENOMINATOR = 10_000n;
/** Multipliers are applied as fixed-point with 9 decimals (exact for any decimal typed by hand). */
const MULT_SCALE = 1_000_000_000n;
export const U64_MAX = (1n << 64n) - 1n;

export type ImpactBand = 'minimal' | 'low' | 'moderate' | 'high';

/** The band of a price impact given in percent. */
export function impactBand(pct: number): ImpactBand {
  if (pct < IMPACT_BAND_THRESHOLDS_PCT.minimal) return 'minimal';
  if (pct < IMPACT_BAND_THRESHOLDS_PCT.low) return 'low';
  if (pct < IMPACT_BAND_THRESHOLDS_PCT.moderate) return 'moderate';
  return 'high';
}

/** Output still accepted at `slippageBps`: floor(out * (10000 - bps) / 10000). */
export function minReceived(outAmount: bigint, slippageBps: number): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000) throw new RangeError(`slippageBps out of range: ${slippageBps}`);
  return (outAmount * (BPS_DENOMINATOR - BigInt(slippageBps))) / BPS_DENOMINATOR;
}

/** floor(amount * mult) in base units, with `mult` taken to 9 decimals. */
export function sizeForMult(amount: bigint, mult: number): bigint {
  if (!(mult > 0) || !Number.isFinite(mult)) throw new RangeError(`mult must be a positive finite number: ${mult}`);
  const scaled = BigInt(Math.round(mult * Number(MULT_SCALE)));
  return (amount * scaled) / MULT_SCALE;
}

/** Percent from a decimal fraction (Jupiter's `priceImpactPct` is a fraction: 0.01 = 1 %). */
export function fractionToPct(fraction: number): number {
  return Math.max(0, fraction * 100);
}

/** One quoted size as the sweep collected it; amounts as decimal strings. */
export interface CurveInputPoint {
  readonly mult: number;
  readonly sizeBaseUnits: string;
  readonly outAmount: string | null;
  readonly priceImpactFraction: number | null;
  readonly swapUsdValue: number | null;
  readonly contextSlot: number | null;
  readonly hops: number | null;
  readonly error: string | null;
}

export interface CurvePoint {
  readonly mult: number;
  readonly sizeBaseUnits: string;
  readonly outAmount: string | 'unknown';
  readonly swapUsdValue: number | 'unknown';
  readonly priceImpactPct: number | 'unknown';
  readonly band: ImpactBand | 'unknown';
  /** Output per input unit relative to the smallest quoted size, in percent below it (>= 0 means worse). */
  readonly rateDropVsSmallestPct: number | 'unknown';
  readonly contextSlot: number | 'unknown';
  readonly hops: number | 'unknown';
  readonly error?: string;
}

export interface DepthLevel {
  /** USD value of the largest tested size under the threshold; null when no tested size is under it. */
  readonly maxUsd: number | null | 'unknown';
  readonly sizeBaseUnits: string | null;
  readonly mult: number | null;
}

export interface CurveOutput {
  readonly points: CurvePoint[];
  readonly depth: { readonly under1pct: DepthLevel; readonly under5pct: DepthLevel };
}

function rate(p: CurveInputPoint): number | null {
  if (p.outAmount === null) return null;
  const size = Number(p.sizeBaseUnits);
  return size > 0 ? Number(p.outAmount) / size : null;
}

function depthUnder(points: readonly CurvePoint[], thresholdPct: number): DepthLevel {
  let best: CurvePoint | null = null;
  for (const p of points) {
    if (typeof p.priceImpactPct !== 'number' || p.priceImpactPct >= thresholdPct) continue;
    if (best === null || BigInt(p.sizeBaseUnits) > BigInt(best.sizeBaseUnits)) best = p;
  }
  if (best === null) return { maxUsd: null, sizeBaseUnits: null, mult: null };
  return { maxUsd: best.swapUsdValue, sizeBaseUnits: best.sizeBaseUnits, mult: best.mult };
}

/** The `slippageCurve` pool task: impact, band and rate drop per point, then depth under 1 % and 5 %. */
export function slippageCurve(input: { readonly points: readonly CurveInputPoint[] }): CurveOutput {
  const quoted = input.points.filter((p) => rate(p) !== null);
  const smallest = quoted.reduce<CurveInputPoint | null>((min, p) => (min === null || BigInt(p.sizeBaseUnits) < BigInt(min.sizeBaseUnits) ? p : min), null);
  const baseRate = smallest === null ? null : rate(smallest);
  const points = input.points.map((p): CurvePoint => {
    const pct = p.priceImpactFraction === null || p.outAmount === null ? null : fractionToPct(p.priceImpactFraction);
    const r = rate(p);
    return {
      mult: p.mult,
      sizeBaseUnits: p.sizeBaseUnits,
      outAmount: p.outAmount ?? 'unknown',
      swapUsdValue: p.outAmount === null ? 'unknown' : (p.swapUsdValue ?? 'unknown'),
      priceImpactPct: pct ?? 'unknown',
      band: pct === null ? 'unknown' : impactBand(pct),
      rateDropVsSmallestPct: r === null || baseRate === null || baseRate === 0 ? 'unknown' : Math.max(0, (1 - r / baseRate) * 100),
      contextSlot: p.contextSlot ?? 'unknown',
      hops: p.hops ?? 'unknown',
      ...(p.error === null ? {} : { error: p.error }),
    };
  });
  return { points, depth: { under1pct: depthUnder(points, DEPTH_THRESHOLDS_PCT.under1pct), under5pct: depthUnder(points, DEPTH_THRESHOLDS_PCT.under5pct) } };
}

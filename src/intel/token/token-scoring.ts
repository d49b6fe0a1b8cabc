/**
 * The index and bands of the token analysis (docs/contract.md#token-index-and-decisions;
 * methodology in token-methodology.ts):
 * component scores -> smri, smriBand, confidence; flags + concentration -> riskBand; smri +
 * confidence -> EXECUTE / REVIEW / REJECT. Pure.
 */
import type { RiskFlag } from './extension-flags.ts';
import { CONCENTRATION_SEVERITY_PCT, DECISION_RULES, SEVERITIES, SMRI_BANDS, SMRI_WEIGHTS, type Severity } from './token-methodology.ts';

export type SmriBand = 'unknown' | 'low-risk' | 'medium-risk' | 'high-risk';
export type RiskBand = 'low' | 'medium' | 'high';
export type Decision = 'EXECUTE' | 'REVIEW' | 'REJECT';

export interface Components {
  readonly contract: { readonly score: number; readonly weight: number; readonly note: string };
  readonly concentration: { readonly score: number | 'unknown'; readonly weight: number; readonly note: string };
}

export interface IndexResult {
  readonly smri: number | null;
  readonly smriBand: SmriBand;
  readonly confidence: number;
  readonly components: Components;
}

/** Concentration score from the top-10 share of circulating supply; `unknown` without data. */
export function concentrationScore(top10CirculatingPct: number | null): number | 'unknown' {
  if (top10CirculatingPct === null) return 'unknown';
  return Math.max(0, Math.min(100, Math.round(100 - top10CirculatingPct)));
}

export function smriBandOf(smri: number | null): SmriBand {
  if (smri === null) return 'unknown';
  if (smri >= SMRI_BANDS.lowRiskMin) return 'low-risk';
  if (smri >= SMRI_BANDS.mediumRiskMin) return 'medium-risk';
  return 'high-risk';
}

/** The index over the components that have data (weights renormalised). */
export function computeIndex(contract: { score: number; note: string }, concentration: { score: number | 'unknown'; note: string }): IndexResult {
  const parts: [number, number][] = [[contract.score, SMRI_WEIGHTS.contract]];
  if (concentration.score !== 'unknown') parts.push([concentration.score, SMRI_WEIGHTS.concentration]);
  const weight = parts.reduce((s, [, w]) => s + w, 0);
  const smri = weight > 0 ? Math.round(parts.reduce((s, [v, w]) => s + v * w, 0) / weight) : null;
  return {
    smri,
    smriBand: smriBandOf(smri),
    confidence: parts.length / 2,
    components: {
      contract: { score: contract.score, weight: SMRI_WEIGHTS.contract, note: contract.note },
      concentration: { score: concentration.score, weight: SMRI_WEIGHTS.concentration, note: concentration.note },
    },
  };
}

/** Severity the concentration adds to the band; null when unknown. */
export function concentrationSeverity(top10CirculatingPct: number | null): Severity | null {
  if (top10CirculatingPct === null) return null;
  if (top10CirculatingPct > CONCENTRATION_SEVERITY_PCT.high) return 'high';
  if (top10CirculatingPct > CONCENTRATION_SEVERITY_PCT.medium) return 'medium';
  return 'low';
}

/** The worst severity among flags and concentration, as a token-risk band. */
export function riskBandOf(flags: readonly RiskFlag[], top10CirculatingPct: number | null): RiskBand {
  const severities = [...flags.map((f) => f.severity), concentrationSeverity(top10CirculatingPct)].filter((s): s is Severity => s !== null);
  const worst = SEVERITIES.find((s) => severities.includes(s)) ?? 'info';
  return worst === 'high' ? 'high' : worst === 'medium' ? 'medium' : 'low';
}

/** The decision mapping of docs/contract.md#token-index-and-decisions, with the sentence that says why. */
export function decisionOf(smri: number | null, confidence: number): { decision: Decision; reason: string } {
  const r = DECISION_RULES;
  const rule = `REJECT below ${r.rejectBelowSmri}; EXECUTE at >= ${r.executeMinSmri} with confidence >= ${r.executeMinConfidence}; REVIEW otherwise`;
  if (smri === null) return { decision: 'REVIEW', reason: `SMRI is unknown (no component had data); ${rule}.` };
  if (smri < r.rejectBelowSmri) return { decision: 'REJECT', reason: `SMRI ${smri} is below ${r.rejectBelowSmri} (${rule}).` };
  if (smri >= r.executeMinSmri && confidence >= r.executeMinConfidence) {
    return { decision: 'EXECUTE', reason: `SMRI ${smri} is >= ${r.executeMinSmri} with confidence ${confidence} >= ${r.executeMinConfidence} (${rule}).` };
  }
  if (smri >= r.executeMinSmri)
    return { decision: 'REVIEW', reason: `SMRI ${smri} is >= ${r.executeMinSmri} but confidence ${confidence} is below ${r.executeMinConfidence} (${rule}).` };
  return { decision: 'REVIEW', reason: `SMRI ${smri} is in the review range ${r.rejectBelowSmri}-${r.executeMinSmri - 1} (${rule}).` };
}

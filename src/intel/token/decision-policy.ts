/**
 * The /v1/decision firewall: a preset expanded to its rules, explicit parameters overriding it,
 * each rule judged on the observed value, fail-closed (a rule whose input is unknown denies).
 * `decidedBy` names the first denying rule and the value it saw. Pure.
 */
import { POLICY_PRESETS, type FirewallParams, type PolicyPreset } from './token-methodology.ts';

/** Observed values the rules read; null where undeterminable. */
export interface PolicyFacts {
  readonly smri: number | null;
  readonly confidence: number;
  /** Top-10 share of supply in percent. */
  readonly top10Pct: number | null;
  readonly mintAuthorityPresent: boolean | null;
  readonly freezeAuthorityPresent: boolean | null;
  readonly riskBand: string | null;
}

export interface RuleResult {
  readonly rule: keyof FirewallParams;
  readonly threshold: number | boolean;
  readonly observed: number | boolean | string;
  readonly pass: boolean;
  readonly reason: string;
}

export interface PolicyResult {
  readonly verdict: 'ALLOW' | 'DENY';
  /** The first denying rule, or null when every rule passed. */
  readonly decidedBy: RuleResult | null;
  readonly rules: readonly RuleResult[];
  readonly effective: FirewallParams;
  readonly preset: PolicyPreset | null;
  readonly failClosed: true;
}

/** The firewall's rules, in the order they are judged: the one list of its keys (the query reads them by it too). */
export const FIREWALL_RULES: readonly (keyof FirewallParams)[] = [
  'minSmri',
  'maxConcentrationPct',
  'minConfidence',
  'denyMintAuthority',
  'denyFreezeAuthority',
  'denyHighRiskBand',
];

/** The preset's values with explicit parameters on top; undefined rules are not applied. */
export function effectivePolicy(preset: PolicyPreset | null, explicit: FirewallParams): FirewallParams {
  const base: FirewallParams = preset ? POLICY_PRESETS[preset] : {};
  const out: Record<string, number | boolean> = { ...base };
  for (const k of FIREWALL_RULES) if (explicit[k] !== undefined) out[k] = explicit[k];
  return out as FirewallParams;
}

/** Whether any firewall input was sent (then the answer carries `policy`). */
export function hasPolicyInput(preset: PolicyPreset | null, explicit: FirewallParams): boolean {
  return preset !== null || FIREWALL_RULES.some((k) => explicit[k] !== undefined);
}

function judge(rule: keyof FirewallParams, threshold: number | boolean, f: PolicyFacts): RuleResult {
  const unknown = (what: string): RuleResult => ({ rule, threshold, observed: 'unknown', pass: false, reason: `${what} is unknown; fail-closed DENY` });
  const res = (observed: number | boolean | string, pass: boolean, reason: string): RuleResult => ({ rule, threshold, observed, pass, reason });
  switch (rule) {
    case 'minSmri':
      if (f.smri === null) return unknown('SMRI');
      return res(f.smri, f.smri >= (threshold as number), `SMRI ${f.smri} ${f.smri >= (threshold as number) ? '>=' : '<'} ${threshold}`);
    case 'maxConcentrationPct':
      if (f.top10Pct === null) return unknown('top-10 concentration');
      return res(
        f.top10Pct,
        f.top10Pct <= (threshold as number),
        `top-10 concentration ${f.top10Pct}% ${f.top10Pct <= (threshold as number) ? '<=' : '>'} ${threshold}%`,
      );
    case 'minConfidence':
      return res(
        f.confidence,
        f.confidence >= (threshold as number),
        `confidence ${f.confidence} ${f.confidence >= (threshold as number) ? '>=' : '<'} ${threshold}`,
      );
    case 'denyMintAuthority':
      if (!threshold) return res(f.mintAuthorityPresent ?? 'unknown', true, 'rule off');
      if (f.mintAuthorityPresent === null) return unknown('mint authority');
      return res(f.mintAuthorityPresent, !f.mintAuthorityPresent, f.mintAuthorityPresent ? 'mint authority is set' : 'mint authority is not set');
    case 'denyFreezeAuthority':
      if (!threshold) return res(f.freezeAuthorityPresent ?? 'unknown', true, 'rule off');
      if (f.freezeAuthorityPresent === null) return unknown('freeze authority');
      return res(f.freezeAuthorityPresent, !f.freezeAuthorityPresent, f.freezeAuthorityPresent ? 'freeze authority is set' : 'freeze authority is not set');
    case 'denyHighRiskBand':
      if (!threshold) return res(f.riskBand ?? 'unknown', true, 'rule off');
      if (f.riskBand === null || f.riskBand === 'unknown') return unknown('token-risk band');
      return res(f.riskBand, f.riskBand !== 'high', `token-risk band is ${f.riskBand}`);
  }
}

/** Judges every applied rule; DENY when any fails (unknown input fails). */
export function evaluatePolicy(preset: PolicyPreset | null, explicit: FirewallParams, facts: PolicyFacts): PolicyResult {
  const effective = effectivePolicy(preset, explicit);
  const rules = FIREWALL_RULES.filter((k) => effective[k] !== undefined).map((k) => judge(k, effective[k]!, facts));
  const decidedBy = rules.find((r) => !r.pass) ?? null;
  return { verdict: decidedBy ? 'DENY' : 'ALLOW', decidedBy, rules, effective, preset, failClosed: true };
}

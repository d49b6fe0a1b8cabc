/**
 * The `/v1/decision` answer: the mapping of the index (docs/contract.md#token-index-and-decisions),
 * the evidence it rests on, and (when firewall parameters or a preset were sent) the fail-closed
 * policy verdict naming the rule that decided and the value it saw. Executes nothing.
 */
import { evaluatePolicy, FIREWALL_RULES, hasPolicyInput, type PolicyFacts } from './decision-policy.ts';
import type { TokenAnalysis } from './token-analysis.ts';
import { POLICY_PRESETS, TOKEN_DISCLAIMER, type FirewallParams, type PolicyPreset } from './token-methodology.ts';
import { decisionOf } from './token-scoring.ts';

/** The decision query after validation. */
export interface DecisionQuery extends FirewallParams {
  readonly action?: string;
  readonly amountUsd?: string;
  readonly policy?: PolicyPreset;
}

/** Reads the validated query into a DecisionQuery (the catalog already checked types and ranges). */
export function decisionQueryOf(q: Readonly<Record<string, unknown>>): DecisionQuery {
  const out: Record<string, unknown> = {};
  for (const k of ['action', 'amountUsd', ...FIREWALL_RULES]) if (q[k] !== undefined) out[k] = q[k];
  if (typeof q.policy === 'string' && Object.hasOwn(POLICY_PRESETS, q.policy)) out.policy = q.policy;
  return out as DecisionQuery;
}

export function policyFactsOf(a: TokenAnalysis): PolicyFacts {
  return {
    smri: a.index.smri,
    confidence: a.index.confidence,
    top10Pct: a.holders.ok ? a.holders.distribution.top10Pct : null,
    mintAuthorityPresent: a.parsed.mintAuthority !== null,
    freezeAuthorityPresent: a.parsed.freezeAuthority !== null,
    riskBand: a.riskBand,
  };
}

/** The whole answer. */
export function decisionAnswer(a: TokenAnalysis, q: DecisionQuery) {
  const { decision, reason } = decisionOf(a.index.smri, a.index.confidence);
  const warnings = a.flags.filter((f) => f.severity === 'high' || f.severity === 'medium').map((f) => f.note);
  if (!a.holders.ok) warnings.push(`holder concentration unavailable: ${a.holders.message}`);
  const preset = q.policy ?? null;
  const explicit: FirewallParams = q;
  const policy = hasPolicyInput(preset, explicit) ? evaluatePolicy(preset, explicit, policyFactsOf(a)) : null;
  return {
    mint: a.mint,
    action: q.action ?? 'assess',
    amountUsd: q.amountUsd ?? null,
    decision,
    smri: a.index.smri,
    confidence: a.index.confidence,
    smriBand: a.index.smriBand,
    riskBand: a.riskBand,
    components: a.index.components,
    reason,
    warnings,
    evidence: {
      slot: a.slot,
      program: a.parsed.program,
      mintAuthority: a.parsed.mintAuthority,
      freezeAuthority: a.parsed.freezeAuthority,
      flags: a.flags.map((f) => ({ code: f.code, severity: f.severity, penalty: f.penalty })),
      contractScore: a.contractScore,
      top10Pct: a.holders.ok ? a.holders.distribution.top10Pct : 'unknown',
      top10CirculatingPct: a.holders.ok ? (a.holders.distribution.top10CirculatingPct ?? 'unknown') : 'unknown',
      ...(a.holders.ok ? {} : { holdersError: a.holders.error }),
      note: 'action and amountUsd are context only; they do not change the score. Nothing is signed, sent or executed.',
    },
    ...(policy ? { policy } : {}),
    ...(preset ? { policyTemplate: preset } : {}),
    methodologyVersion: a.methodologyVersion,
    disclaimer: TOKEN_DISCLAIMER,
  };
}

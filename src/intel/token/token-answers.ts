/**
 * The JSON answers of the token endpoints, each a view of one TokenAnalysis. Undeterminable values
 * are `unknown` (or null where the schema says so); a failed holder sub-analysis is an explicit
 * `error` field; summaries state their thresholds; every answer carries the disclaimer and
 * `methodologyVersion`.
 */
import type { TokenAnalysis } from './token-analysis.ts';
import { CONCENTRATION_SEVERITY_PCT, HOLDER_BANDS, HOLDER_BUCKETS, LARGEST_ACCOUNTS_LIMIT, TOKEN_DISCLAIMER } from './token-methodology.ts';

const uiAmount = (raw: bigint, decimals: number) => Number(raw) / 10 ** decimals;

function concentrationPart(a: TokenAnalysis): Record<string, unknown> {
  const basis = `the ${LARGEST_ACCOUNTS_LIMIT} largest token accounts (getTokenLargestAccounts)`;
  if (!a.holders.ok) return { top10Pct: 'unknown', top10CirculatingPct: 'unknown', basis, error: a.holders.error, message: a.holders.message };
  const d = a.holders.distribution;
  return { top10Pct: d.top10Pct, top10CirculatingPct: d.top10CirculatingPct ?? 'unknown', basis, slot: a.holders.slot };
}

/** Holder-account count is exact only when fewer accounts than the limit exist; age is best-effort. */
function contextPart(a: TokenAnalysis): Record<string, unknown> {
  const age = { age: a.age };
  if (!a.holders.ok) return { holderAccounts: 'unknown', holderAccountsNote: 'largest accounts not available', ...age };
  const listed = a.holders.listed;
  const nonZero = a.holders.distribution.accounts.filter((x) => x.amount !== '0').length;
  return listed < LARGEST_ACCOUNTS_LIMIT
    ? {
        holderAccounts: nonZero,
        holderAccountsNote: `exact: the RPC listed ${listed} accounts (< ${LARGEST_ACCOUNTS_LIMIT}), so every token account is listed; an account is not necessarily a distinct wallet`,
        ...age,
      }
    : {
        holderAccounts: 'unknown',
        holderAccountsNote: `at least ${nonZero} non-empty accounts; the RPC lists only the ${LARGEST_ACCOUNTS_LIMIT} largest`,
        ...age,
      };
}

function summary(a: TokenAnalysis): string {
  const raised = a.flags.filter((f) => f.severity === 'high' || f.severity === 'medium');
  const flagText =
    raised.length === 0 ? 'no high or medium severity control observed' : `controls observed: ${raised.map((f) => `${f.code} (${f.severity})`).join(', ')}`;
  const c = a.holders.ok ? a.holders.distribution.top10CirculatingPct : null;
  const concText = c === null ? 'top-10 concentration unknown' : `top-10 accounts hold ${c}% of circulating supply`;
  return `Band ${a.riskBand}: ${flagText}; ${concText}. Band rule: worst flag severity; concentration above ${CONCENTRATION_SEVERITY_PCT.high}% counts high, above ${CONCENTRATION_SEVERITY_PCT.medium}% medium.`;
}

/** `/v1/token-risk` (also each batch element's `risk`). */
export function tokenRiskAnswer(a: TokenAnalysis) {
  const p = a.parsed;
  return {
    mint: a.mint,
    riskBand: a.riskBand,
    riskAssessment: { band: a.riskBand, summary: summary(a) },
    mintAuthority: { present: p.mintAuthority !== null, address: p.mintAuthority },
    freezeAuthority: { present: p.freezeAuthority !== null, address: p.freezeAuthority },
    program: p.program,
    programId: p.programId,
    supply: { amount: p.supply.toString(), uiAmount: uiAmount(p.supply, p.decimals), decimals: p.decimals },
    extensions: p.extensions,
    flags: a.flags,
    transferHookProgram: a.hook,
    concentration: concentrationPart(a),
    context: contextPart(a),
    slot: a.slot,
    epoch: a.epoch ?? 'unknown',
    methodologyVersion: a.methodologyVersion,
    disclaimer: TOKEN_DISCLAIMER,
  };
}

/** `/v1/smri`. */
export function smriAnswer(a: TokenAnalysis) {
  return {
    mint: a.mint,
    ...a.index,
    riskBand: a.riskBand,
    slot: a.slot,
    methodologyVersion: a.methodologyVersion,
    disclaimer: TOKEN_DISCLAIMER,
  };
}

/** `/v1/token-intel`: token-risk plus digest and holder classification. */
export function tokenIntelAnswer(a: TokenAnalysis) {
  const top10 = a.holders.ok ? a.holders.distribution.top10Pct : ('unknown' as const);
  const holders = a.holders.ok
    ? {
        classification: a.holders.distribution.accounts.map((x) => ({
          rank: x.rank,
          address: x.address,
          owner: x.owner,
          sharePct: x.sharePct,
          label: x.label,
          labelNote: x.labelNote,
        })),
        note: 'owners are shown as written in the token accounts and not resolved to identities; an account is not necessarily a distinct wallet',
      }
    : { classification: [], error: a.holders.error, message: a.holders.message };
  return {
    ...tokenRiskAnswer(a),
    digest: {
      riskBand: a.riskBand,
      canStillMint: a.parsed.mintAuthority !== null,
      canFreezeAccounts: a.parsed.freezeAuthority !== null,
      top10ConcentrationPct: top10,
      isToken2022: a.parsed.program === 'token-2022',
      smri: a.index.smri,
      smriBand: a.index.smriBand,
      flagCodes: a.flags.filter((f) => f.severity !== 'info').map((f) => f.code),
    },
    holders,
  };
}

/** `/v1/token-holders` (the holder part must have succeeded). */
export function tokenHoldersAnswer(a: TokenAnalysis & { holders: { ok: true } }) {
  const d = a.holders.distribution;
  return {
    mint: a.mint,
    supply: { amount: a.parsed.supply.toString(), uiAmount: uiAmount(a.parsed.supply, a.parsed.decimals), decimals: a.parsed.decimals },
    concentration: {
      top1Pct: d.top1Pct,
      top5Pct: d.top5Pct,
      top10Pct: d.top10Pct,
      top20Pct: d.top20Pct,
      band: d.band,
      bandThresholds: Object.fromEntries(HOLDER_BANDS.map((b) => [b.band, `top10Pct >= ${b.minTop10Pct}`])),
      top10CirculatingPct: d.top10CirculatingPct ?? 'unknown',
    },
    largestAccounts: { returned: d.accounts.length, limit: LARGEST_ACCOUNTS_LIMIT, accounts: d.accounts },
    buckets: d.buckets,
    bucketThresholds: {
      gt5pct: `> ${HOLDER_BUCKETS.gt5pctAbove}%`,
      from1to5pct: `${HOLDER_BUCKETS.from1to5pctMin}-${HOLDER_BUCKETS.gt5pctAbove}%`,
      lt1pct: `< ${HOLDER_BUCKETS.from1to5pctMin}%`,
      unknown: 'share not computable (zero supply)',
    },
    note: 'Shares are of total supply; buckets count the listed accounts only. Owners are not resolved; an account is not necessarily a distinct wallet.',
    slot: a.holders.slot ?? a.slot,
    methodologyVersion: a.methodologyVersion,
    disclaimer: TOKEN_DISCLAIMER,
  };
}

/**
 * The published methodology of the token analysis (smri, decision, token-risk, token-intel,
 * batch/token-risk, token-holders): every weight, penalty, threshold, band and preset, with the
 * version every token answer carries as `methodologyVersion`. /trust/sir and /openapi.json
 * publish this constant, so an answer can be recomputed from the chain data it cites.
 */

/** Bumped whenever a number below changes. */
export const TOKEN_METHODOLOGY_VERSION = 'token-sir-1.0.0';

/** Flag severities, worst first. */
export const SEVERITIES = ['high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Points subtracted from the contract score (starts at 100, floored at 0) per observed control. */
export const CONTRACT_PENALTIES = {
  mintAuthority: 30,
  freezeAuthority: 20,
  permanentDelegate: 40,
  transferHookUpgradeableOrUnknown: 25,
  transferHookImmutable: 15,
  /** Applied to the larger of the current and the scheduled fee. */
  transferFeeAtLeast10pct: 30,
  transferFeeAtLeast1pct: 15,
  transferFeeNonZero: 5,
  defaultAccountStateFrozen: 30,
  nonTransferable: 40,
  mintCloseAuthority: 10,
  /** Replaces `mintCloseAuthority` when a permanent delegate is also set. */
  mintCloseAuthorityWithPermanentDelegate: 25,
  pausablePaused: 35,
  pausableAuthoritySet: 15,
  confidentialTransfer: 10,
  interestBearing: 5,
  scaledUiAmount: 10,
  /** Replaces `scaledUiAmount` when the scheduled multiplier differs from the current one. */
  scaledUiAmountChangeScheduled: 15,
  unparseableExtension: 10,
} as const;

/** Transfer-fee thresholds in basis points. */
export const TRANSFER_FEE_BPS = { high: 1000, medium: 100 } as const;

/** Component weights of the index (sum 1). */
export const SMRI_WEIGHTS = { contract: 0.6, concentration: 0.4 } as const;

/**
 * Index scale 0-100, higher means fewer observed risk signals. When a component has no data the
 * index is the weighted mean of the components that have data (weights renormalised) and
 * `confidence` = components with data / components intended; with no component it is null.
 */
export const SMRI_BANDS = { lowRiskMin: 70, mediumRiskMin: 40 } as const;

/** Concentration score = round(100 - top-10 share of circulating supply in percent). */
export const CONCENTRATION_SCORE_RULE = 'round(100 - top10PctOfCirculating)';

/** Decision mapping (docs/contract.md#token-index-and-decisions). */
export const DECISION_RULES = { rejectBelowSmri: 40, executeMinSmri: 70, executeMinConfidence: 0.6 } as const;

/** Token-risk band from the top-10 share of circulating supply (percent): above these thresholds. */
export const CONCENTRATION_SEVERITY_PCT = { high: 80, medium: 50 } as const;

/** token-holders `concentration.band` by top-10 share of supply (percent, lower bounds). */
export const HOLDER_BANDS = [
  { band: 'highly-concentrated', minTop10Pct: 80 },
  { band: 'concentrated', minTop10Pct: 50 },
  { band: 'moderate', minTop10Pct: 20 },
  { band: 'dispersed', minTop10Pct: 0 },
] as const;

/** Per-account buckets by share of supply (percent). */
export const HOLDER_BUCKETS = { gt5pctAbove: 5, from1to5pctMin: 1 } as const;

/** getTokenLargestAccounts returns at most this many accounts. */
export const LARGEST_ACCOUNTS_LIMIT = 20;

/** Owners labelled instead of left unresolved. */
export const BURN_OWNERS: readonly string[] = ['1nc1nerator11111111111111111111111111111111'];
export const SYSTEM_OWNERS: Readonly<Record<string, string>> = {
  '11111111111111111111111111111111': 'System Program',
  TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA: 'SPL Token program',
  TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb: 'Token-2022 program',
};

/** Firewall rules of /v1/decision and the presets of docs/contract.md#token-index-and-decisions (explicit parameters override). */
export interface FirewallParams {
  readonly minSmri?: number;
  readonly maxConcentrationPct?: number;
  readonly minConfidence?: number;
  readonly denyMintAuthority?: boolean;
  readonly denyFreezeAuthority?: boolean;
  readonly denyHighRiskBand?: boolean;
}

export const POLICY_PRESETS: Readonly<Record<'conservative' | 'bluechip' | 'anti-rug' | 'degen', Required<FirewallParams>>> = {
  conservative: { minSmri: 70, maxConcentrationPct: 50, minConfidence: 0.8, denyMintAuthority: true, denyFreezeAuthority: true, denyHighRiskBand: true },
  bluechip: { minSmri: 80, maxConcentrationPct: 40, minConfidence: 0.9, denyMintAuthority: true, denyFreezeAuthority: true, denyHighRiskBand: true },
  'anti-rug': { minSmri: 50, maxConcentrationPct: 60, minConfidence: 0.5, denyMintAuthority: true, denyFreezeAuthority: true, denyHighRiskBand: true },
  degen: { minSmri: 20, maxConcentrationPct: 90, minConfidence: 0.3, denyMintAuthority: false, denyFreezeAuthority: true, denyHighRiskBand: false },
};
export type PolicyPreset = keyof typeof POLICY_PRESETS;

/** Cache lifetimes of chain data (entries are stamped with the RPC context slot). */
export const TOKEN_CACHE_TTL_MS = { snapshot: 15_000 } as const;

/** The text every answer carries. */
export const TOKEN_DISCLAIMER =
  'Not financial advice. Factual, threshold-stated signals computed from on-chain data at the stated slot; not a judgement of any token or party.';

/** Everything above as one document for /trust/sir and /openapi.json. */
export const TOKEN_METHODOLOGY = {
  methodologyVersion: TOKEN_METHODOLOGY_VERSION,
  scale: 'smri 0-100; higher means fewer observed risk signals; null when no component has data',
  weights: SMRI_WEIGHTS,
  contractScore: { start: 100, floor: 0, penalties: CONTRACT_PENALTIES, transferFeeBps: TRANSFER_FEE_BPS },
  concentrationScore: {
    rule: CONCENTRATION_SCORE_RULE,
    basis: `the ${LARGEST_ACCOUNTS_LIMIT} largest token accounts (getTokenLargestAccounts); accounts owned by burn or system addresses are excluded and their balance removed from circulating supply`,
  },
  confidence: 'components with data / components intended (2)',
  smriBands: {
    'low-risk': `>= ${SMRI_BANDS.lowRiskMin}`,
    'medium-risk': `${SMRI_BANDS.mediumRiskMin}-${SMRI_BANDS.lowRiskMin - 1}`,
    'high-risk': `< ${SMRI_BANDS.mediumRiskMin}`,
    unknown: 'smri null',
  },
  riskBand: {
    rule: 'the worst severity among flags: high -> high, medium -> medium, otherwise low; top-10 share of circulating supply above 80% counts as high, above 50% as medium',
    concentrationSeverityPct: CONCENTRATION_SEVERITY_PCT,
  },
  decision: {
    rules: DECISION_RULES,
    text: `REJECT if smri < ${DECISION_RULES.rejectBelowSmri}; EXECUTE if smri >= ${DECISION_RULES.executeMinSmri} and confidence >= ${DECISION_RULES.executeMinConfidence}; otherwise REVIEW; smri null gives REVIEW`,
  },
  firewall: { failClosed: 'a rule whose input is unknown gives DENY', presets: POLICY_PRESETS },
  holders: {
    buckets: {
      gt5pct: `share > ${HOLDER_BUCKETS.gt5pctAbove}%`,
      from1to5pct: `${HOLDER_BUCKETS.from1to5pctMin}% <= share <= ${HOLDER_BUCKETS.gt5pctAbove}%`,
      lt1pct: `share < ${HOLDER_BUCKETS.from1to5pctMin}%`,
      unknown: 'share not computable (zero supply)',
    },
    bands: HOLDER_BANDS,
    labels: {
      burn: BURN_OWNERS,
      system: SYSTEM_OWNERS,
      systemAlso: 'the mint address itself',
      unresolved: 'any other owner, shown as written, not resolved to an identity',
      unknown: 'token account data not readable',
    },
  },
  context: {
    holderAccounts: `exact when getTokenLargestAccounts lists fewer than ${LARGEST_ACCOUNTS_LIMIT} accounts (then every account is listed), otherwise unknown`,
    age: 'one page (1000) of getSignaturesForAddress(mint): fewer than a page -> days since the oldest signature; a full page -> a lower bound only (ageDays unknown); none -> unknown',
  },
  errors: {
    not_found: '404: no account at the address (reason account_not_found) or the account is not an initialized SPL Token / Token-2022 mint (reason not_a_mint)',
    snapshot_unavailable:
      '502 on /v1/token-holders when the RPC excludes the mint from its secondary indexes (JSON-RPC -32010; very large mints such as USDT); elsewhere the holder part carries error snapshot_unavailable and concentration is unknown',
    upstream: '502 upstream_unavailable / upstream_timeout when the RPC is down; nothing is settled',
    batch: 'per element: invalid_mint, not_found, not_a_mint',
  },
  chainReads:
    'JSON-RPC batches: (1) getMultipleAccounts(mints) + getEpochInfo + getTokenLargestAccounts per mint, (2) getMultipleAccounts(largest accounts, hook programs) + getSignaturesForAddress per mint, (3) ProgramData of upgradeable hook programs only; snapshots stamped with the context slot',
  cacheTtlMs: TOKEN_CACHE_TTL_MS,
} as const;

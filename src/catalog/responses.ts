/**
 * 200 response schemas of the paid endpoints: the fields docs/contract.md#response-fields requires,
 * with additional fields allowed (the contract lists a minimum). Each catalog entry names its own
 * (endpoints.ts `response`); they are published in /openapi.json and check every answer in the tests.
 */
import { Type, type TSchema } from './params.ts';

const Unknown = Type.Literal('unknown');
const int = (description?: string) => Type.Integer(description ? { description } : {});
const num = (description?: string) => Type.Number(description ? { description } : {});
const str = (description?: string) => Type.String(description ? { description } : {});
const Disclaimer = str('Not financial advice; factual, threshold-stated signals only.');

const Components = Type.Object({
  contract: Type.Object({ score: Type.Integer({ minimum: 0, maximum: 100 }), weight: num(), note: str() }),
  concentration: Type.Object({ score: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Unknown]), weight: num(), note: str() }),
});
const Smri = Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], { description: '0-100, higher is safer; null when undeterminable' });
const SmriBand = Type.Union([Type.Literal('unknown'), Type.Literal('low-risk'), Type.Literal('medium-risk'), Type.Literal('high-risk')]);
const Confidence = Type.Number({ minimum: 0, maximum: 1, description: 'fraction of intended components that had data' });

const TokenRisk = Type.Object({
  riskAssessment: Type.Object({ band: str(), summary: str() }),
  mintAuthority: Type.Object({ present: Type.Boolean() }),
  freezeAuthority: Type.Object({ present: Type.Boolean() }),
  disclaimer: Disclaimer,
});

/** A market figure the source may leave empty: `unknown` then, never guessed. */
const NumOrUnknown = Type.Union([num(), Unknown]);
const ImpactBand = Type.Union([Type.Literal('minimal'), Type.Literal('low'), Type.Literal('moderate'), Type.Literal('high')]);

const Pool = Type.Object({
  name: str(),
  baseMint: str('base token mint, or unknown'),
  priceChangePct: Type.Object({ h1: NumOrUnknown, h6: NumOrUnknown, h24: NumOrUnknown }),
  volume24hUsd: NumOrUnknown,
  liquidityUsd: NumOrUnknown,
});
const TxCounts = Type.Union([Type.Object({ buys: int(), sells: int() }), Unknown]);

/**
 * One new pool: a row of /v1/new-pairs and the `data` of each new-pairs stream update (one schema
 * for both). Every figure the market source leaves empty is `unknown`.
 */
export const NewPoolRow = Type.Intersect([
  Pool,
  Type.Object({
    poolAddress: str("the pool (the market source's pool address)"),
    baseSymbol: str('or unknown: a fresh token often has no metadata yet'),
    quoteMint: str('or unknown'),
    dex: str("the market source's dex id, or unknown"),
    priceUsd: NumOrUnknown,
    priceChangePct: Type.Object({ m5: NumOrUnknown, h1: NumOrUnknown, h6: NumOrUnknown, h24: NumOrUnknown }),
    ageMinutes: Type.Union([int(), Unknown]),
    createdAt: str('ISO 8601 creation time the source reports, or unknown'),
    fdvUsd: NumOrUnknown,
    transactions: Type.Object({ h1: TxCounts, h24: TxCounts }),
  }),
]);
const DepthLevel = Type.Object({
  maxUsd: Type.Union([num(), Type.Null(), Unknown], { description: 'null: no tested size under the threshold' }),
  sizeBaseUnits: Type.Union([str(), Type.Null()]),
});

/** A failed sub-analysis: an explicit error field (e.g. `upstream_unavailable`) instead of its data. */
const PartError = Type.Object({ error: str(), message: str() });

/** The response schema of each paid endpoint, by name: a catalog entry names its own (endpoints.ts). */
export const RESPONSE_SCHEMAS = {
  smri: Type.Object({ mint: str(), smri: Smri, smriBand: SmriBand, confidence: Confidence, components: Components, riskBand: str() }),
  simulate: Type.Object({
    willSucceed: Type.Boolean(),
    unitsConsumed: Type.Union([int(), Unknown]),
    err: Type.Unknown({ description: 'transaction error JSON, null when none' }),
    accountsTouched: int(),
    note: str(),
    logs: Type.Array(str()),
    programsInvoked: Type.Array(Type.Object({ name: str(), programId: str() })),
  }),
  decision: Type.Object({
    decision: Type.Union([Type.Literal('EXECUTE'), Type.Literal('REVIEW'), Type.Literal('REJECT')]),
    smri: Smri,
    confidence: Confidence,
    smriBand: SmriBand,
    riskBand: str(),
    components: Components,
    reason: str(),
    warnings: Type.Array(str()),
    evidence: Type.Object({}),
    policy: Type.Optional(Type.Object({ verdict: Type.Union([Type.Literal('ALLOW'), Type.Literal('DENY')]) })),
    policyTemplate: Type.Optional(str()),
  }),
  tokenHolders: Type.Object({
    supply: Type.Object({ uiAmount: num(), decimals: int() }),
    concentration: Type.Object({ top1Pct: num(), top5Pct: num(), top10Pct: num(), top20Pct: num(), band: str() }),
    largestAccounts: Type.Object({ returned: int(), limit: Type.Integer({ maximum: 20 }) }),
    buckets: Type.Object({ gt5pct: int(), from1to5pct: int(), lt1pct: int(), unknown: int() }),
  }),
  slippageMap: Type.Object({
    pair: Type.Object({ inputMint: str(), outputMint: str() }),
    baseAmount: str(),
    points: Type.Array(
      Type.Object({
        mult: num(),
        sizeBaseUnits: str(),
        swapUsdValue: NumOrUnknown,
        priceImpactPct: NumOrUnknown,
        band: Type.Union([ImpactBand, Unknown]),
        error: Type.Optional(str('why this size has no quote')),
      }),
      { maxItems: 8 },
    ),
    depth: Type.Object({ under1pct: DepthLevel, under5pct: DepthLevel }),
  }),
  tipfloor: Type.Object({ unit: Type.Literal('lamports'), p50: int(), p95: int(), p99: int(), ema: int(), history: Type.Array(Type.Object({})) }),
  epoch: Type.Object({ epoch: int(), slotIndex: int(), slotsInEpoch: int(), etaSecondsToEnd: int(), slotRates: Type.Object({}) }),
  lendingMarkets: Type.Object({
    markets: Type.Array(Type.Object({ name: str(), address: str(), tvlUsd: NumOrUnknown, error: Type.Optional(str()) }), { maxItems: 100 }),
  }),
  sgpCheckpoint: Type.Object({
    latest: Type.Object({ epoch: int(), slotIndex: int(), slotsInEpoch: int(), progressPct: num() }),
    measured: Type.Object({ slotMs: num(), baselineSpanHours: num(), etaEpochEndIso: Type.String({ format: 'date-time' }) }),
    series: Type.Object({
      count: int(),
      recent: Type.Array(Type.Object({})),
      lastTransition: Type.Union([Type.Object({ fromEpoch: int(), toEpoch: int() }), Type.Null()]),
    }),
  }),
  tokenRisk: TokenRisk,
  walletScan: Type.Object({
    profile: Type.Object({ band: Type.Union([Type.Literal('fresh'), Type.Literal('active'), Type.Literal('heavy'), Type.Literal('empty')]), summary: str() }),
    solBalance: num(),
    activity: Type.Object({ recentSignatures: int(), window: int(), windowFull: Type.Boolean() }),
    tokens: Type.Object({ splTokenAccounts: int(), token2022Accounts: int() }),
    age: Type.Union(
      [
        Type.Object({
          firstSeenUnix: int(),
          firstSeenIso: str(),
          seconds: int(),
          days: num(),
          basis: Type.Union([Type.Literal('exact'), Type.Literal('lower-bound')]),
        }),
        Unknown,
      ],
      { description: 'from the oldest signature in the scan window; lower-bound when older history may exist' },
    ),
    disclaimer: Disclaimer,
  }),
  tokenIntel: Type.Intersect([
    TokenRisk,
    Type.Object({
      digest: Type.Object({
        riskBand: str(),
        canStillMint: Type.Boolean(),
        canFreezeAccounts: Type.Boolean(),
        top10ConcentrationPct: Type.Union([num(), Unknown]),
        isToken2022: Type.Boolean(),
      }),
    }),
  ]),
  batchTokenRisk: Type.Object({
    requested: int(),
    count: int(),
    results: Type.Array(Type.Object({ mint: str(), risk: Type.Optional(Type.Object({ disclaimer: str(), riskBand: str() })), error: Type.Optional(str()) })),
  }),
  priorityFee: Type.Object({
    unit: Type.Literal('microLamportsPerComputeUnit'),
    percentiles: Type.Object({ p50: int(), p75: int(), p90: int(), p99: int() }),
    suggestedBands: Type.Object({ economy: int(), normal: int(), fast: int(), aggressive: int() }),
  }),
  dexQuote: Type.Object({
    output: Type.Object({ amount: str(), minReceived: str(), swapUsdValue: NumOrUnknown, swapUsdValueSource: str() }),
    priceImpact: Type.Object({ pct: NumOrUnknown, band: Type.Union([ImpactBand, Unknown]) }),
    route: Type.Object({ hops: int(), path: Type.Array(Type.Object({ amm: str() })) }),
    contextSlot: Type.Union([int(), Unknown], { description: 'slot the quote was computed at (freshness)' }),
  }),
  trendingTokens: Type.Object({
    count: int(),
    pools: Type.Array(
      Type.Intersect([
        Pool,
        Type.Object({
          fdvUsd: NumOrUnknown,
          marketCapUsd: NumOrUnknown,
          transactions: Type.Object({ h1: TxCounts, h6: TxCounts, h24: TxCounts }),
          poolCreatedAt: str(),
          poolAgeMinutes: Type.Union([int(), Unknown]),
        }),
      ]),
      { maxItems: 20 },
    ),
  }),
  newPairs: Type.Object({
    count: int(),
    pools: Type.Array(NewPoolRow, { maxItems: 20 }),
  }),
  nftCollection: Type.Object({
    symbol: str(),
    floorPriceSol: Type.Union([num(), Type.Null(), Unknown], { description: 'lowest current ask; null when nothing is listed' }),
    floorPriceLamports: Type.Union([int(), Type.Null(), Unknown]),
    listedCount: Type.Union([int(), Unknown]),
    avgPrice24hrSol: Type.Union([num(), Type.Null()], { description: 'null when no sale in 24 h' }),
    volume7dSol: NumOrUnknown,
  }),
  txInspect: Type.Object({
    success: Type.Boolean(),
    feeSol: num(),
    computeUnitsConsumed: Type.Union([int(), Unknown]),
    programsInvoked: Type.Array(Type.Object({ name: str('well-known program name, or unknown'), programId: str() })),
    slot: int(),
    blockTime: Type.Union([int(), Unknown]),
    solBalanceChanges: Type.Array(Type.Object({})),
    tokenBalanceChanges: Type.Array(Type.Object({})),
  }),
  pretrade: Type.Object({
    digest: Type.Union([Type.Object({ riskBand: str() }), PartError]),
    largestHolder: Type.Union([Type.Object({ band: str(), owner: str() }), PartError]),
    priorityFee: Type.Union([Type.Object({ suggestedBands: Type.Object({ normal: int() }) }), PartError]),
    checklist: Type.Array(Type.Object({ check: str(), observed: Type.Union([Type.Boolean(), Unknown]) })),
    disclaimer: Disclaimer,
  }),
} satisfies Record<string, TSchema>;

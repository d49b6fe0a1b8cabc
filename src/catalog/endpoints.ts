/**
 * The endpoint catalog: the single registry of the paid endpoints (docs/contract.md#paid-endpoints).
 * Routing, validation, 402 terms, /.well-known/x402, /openapi.json, /llms.txt, /pricing, the MCP
 * tools (with their free samples, from `example`) and the free daily previews (from `preview`) are
 * all generated from it, and the paid handlers are held to it by type: `PaidPath` is the union of
 * the paths below, and the service's handler map must serve every one (docs/development.md,
 * "Adding a paid endpoint"). An entry carries its response schema and preview rule.
 */
import type { Static } from 'typebox';
import type { Category } from './console-endpoint.ts';
import * as p from './params.ts';
import { PREVIEW_LIST_ITEMS as N, type PreviewRule } from './preview-rules.ts';
import { RESPONSE_SCHEMAS as R } from './responses.ts';

export interface EndpointEntry {
  readonly path: string;
  /** Price in atomic stablecoin units (6 decimals): 10000 = $0.01. */
  readonly priceUnits: number;
  readonly category: Category;
  readonly tags: readonly string[];
  readonly summary: string;
  readonly description: string;
  readonly query: p.TSchema;
  /** A query that the endpoint answers, for docs, discovery and samples. */
  readonly example: Readonly<Record<string, string>>;
  readonly response: p.TSchema;
  /** What the free daily preview shows of an answer (preview-rules.ts). */
  readonly preview: PreviewRule;
}

/**
 * What the payment path needs of anything sold: its path, its price and what the 402 says of it.
 * A paid endpoint is one; a stream's period is another (streams.ts), paid through the same path.
 */
export type PricedResource = Pick<EndpointEntry, 'path' | 'priceUnits' | 'description'>;

const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const WSOL = 'So11111111111111111111111111111111111111112';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const EXAMPLE_WALLET = '96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5';
/** An unsigned v0 transfer of 1000 lamports, as a well-formed `tx` example. */
const EXAMPLE_TX =
  'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAAQABA3hSHLF5zruFibVWotXslNJJhoL9+bsq9a1k5JHMQVPa8Yfsh9H3Rcs6AzhKJqae2gyi0aoPQeQkFjd+kf9bXTEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADlz4zDCm4MfP8sOSTdO2NA4j0EKI+Tr8jMoUFA2770DAQICAAEMAgAAAOgDAAAAAAAAAA==';
const EXAMPLE_SIG = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

const mintParam = (what: string) => p.Type.Object({ mint: p.address({ description: `Base58 address of the token mint to ${what}.` }) });
const slippageBps = p.integer({ description: 'Slippage tolerance in basis points (0-5000).', minimum: 0, maximum: 5000, default: 50 });
const poolLimit = p.integer({ description: 'Pools returned (1-20).', minimum: 1, maximum: 20, default: 15 });
const pct = (description: string) => p.decimalNumber({ description, minimum: 0, maximum: 100 });
const flag = (description: string) => p.boolean({ description });
/** One entry as written, its path and response schema kept as types (PaidPath, ResponseOf). */
const endpoint = <P extends string, R extends p.TSchema>(e: EndpointEntry & { readonly path: P; readonly response: R }) => e;

// biome-ignore format: a table, one compact block per endpoint
const ENTRIES = [
  endpoint({
    path: '/v1/smri', priceUnits: 10_000, category: 'intelligence', tags: ['risk', 'token', 'index'],
    summary: 'Machine risk index (0-100) of a token, with components',
    description: 'Solana machine risk index: 0-100 (higher means fewer observed risk signals) from contract controls (weight 0.6) and top-10 holder concentration (weight 0.4), with per-component scores, confidence and bands (>= 70 low-risk, 40-69 medium-risk, < 40 high-risk).',
    query: mintParam('score'), example: { mint: BONK },
    response: R.smri, preview: { cut: {}, withhold: ['components'] },
  }),
  endpoint({
    path: '/v1/simulate', priceUnits: 10_000, category: 'execution', tags: ['simulation', 'transaction', 'dry-run'],
    summary: 'Dry-run a serialized transaction',
    description: 'Simulates a base64 serialized transaction against current chain state (sigVerify off, recent blockhash replaced, so unsigned transactions work): success, compute units, error, accounts touched, programs and logs. Never signs or sends; not a guarantee of on-chain outcome; 400 invalid_transaction when it does not decode.',
    query: p.Type.Object({ tx: p.base64Transaction({ description: 'Base64 serialized transaction (legacy or v0), at most 1232 bytes.' }) }),
    example: { tx: EXAMPLE_TX },
    response: R.simulate, preview: { cut: { logs: N, programsInvoked: N }, withhold: [] },
  }),
  endpoint({
    path: '/v1/decision', priceUnits: 50_000, category: 'intelligence', tags: ['decision', 'firewall', 'policy', 'risk'],
    summary: 'Pre-trade decision with optional policy firewall',
    description: 'EXECUTE / REVIEW / REJECT from the risk index (REJECT below 40; EXECUTE at 70 or more with confidence >= 0.6; REVIEW otherwise) and its evidence, plus an ALLOW/DENY policy verdict (fail-closed: unknown input denies) naming the deciding rule when firewall parameters or a preset are sent. Executes nothing.',
    query: p.Type.Object({
      mint: p.address({ description: 'Base58 address of the token mint.' }),
      action: p.Type.Optional(p.text({ description: 'Context string for the decision (1-64 characters); executes nothing.', minLength: 1, maxLength: 64, default: 'assess' })),
      amountUsd: p.Type.Optional(p.patterned({ description: 'Trade size in USD as a plain non-negative decimal (context only; does not change the score).', pattern: '^(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)$', minLength: 1, maxLength: 32 })),
      minSmri: p.Type.Optional(pct('DENY unless the risk index is at least this value (0-100).')),
      maxConcentrationPct: p.Type.Optional(pct('DENY if top-10 holder concentration exceeds this percentage (0-100).')),
      minConfidence: p.Type.Optional(p.decimalNumber({ description: 'DENY if confidence is below this value (0-1).', minimum: 0, maximum: 1 })),
      denyMintAuthority: p.Type.Optional(flag('DENY if the mint authority is still set.')),
      denyFreezeAuthority: p.Type.Optional(flag('DENY if the freeze authority is still set.')),
      denyHighRiskBand: p.Type.Optional(flag('DENY if the token-risk band is high.')),
      policy: p.Type.Optional(p.oneOf(['conservative', 'bluechip', 'anti-rug', 'degen'] as const, { description: 'Preset policy; explicit parameters override its values.' })),
    }),
    example: { mint: BONK, policy: 'anti-rug', amountUsd: '250' },
    response: R.decision, preview: { cut: { warnings: N }, withhold: ['components', 'evidence', 'policy.rules', 'policy.effective'] },
  }),
  endpoint({
    path: '/v1/token-holders', priceUnits: 5_000, category: 'forensics', tags: ['holders', 'concentration', 'token'],
    summary: 'Largest token accounts, concentration and buckets',
    description: 'Up to 20 largest token accounts with their share of supply, top-1/5/10/20 concentration, buckets (> 5%, 1-5%, < 1%) and band by top-10 share (dispersed < 20%, moderate < 50%, concentrated < 80%, highly-concentrated). Burn and system holders are labelled; other owners are shown, not resolved to identities.',
    query: mintParam('inspect'), example: { mint: JUP },
    response: R.tokenHolders, preview: { cut: { 'largestAccounts.accounts': N }, withhold: [] },
  }),
  endpoint({
    path: '/v1/slippage-map', priceUnits: 5_000, category: 'execution', tags: ['slippage', 'depth', 'quote', 'swap'],
    summary: 'Price impact per trade size and depth summary',
    description: 'Quotes the pair at up to 8 multiples of a base size (Jupiter quotes) and reports price impact, band (minimal < 0.1% <= low < 1% <= moderate < 5% <= high) and USD value per size plus the largest tested size under 1% and 5% impact. A quote only, never an execution.',
    query: p.Type.Object({
      inputMint: p.address({ description: 'Mint sold.' }),
      outputMint: p.address({ description: 'Mint bought.' }),
      amount: p.atomicAmount({ description: 'Base size in base units of the input mint (the 1x size).' }),
      slippageBps: p.Type.Optional(slippageBps),
      mults: p.Type.Optional(p.positiveNumberList({ description: `Comma-separated size multipliers (0 < m <= ${p.MAX_MULT}), up to 8.`, maxItems: 8, default: '0.1,1,10,100' })),
    }),
    example: { inputMint: WSOL, outputMint: USDC, amount: '1000000000' },
    response: R.slippageMap, preview: { cut: { points: N }, withhold: ['depth'] },
  }),
  endpoint({
    path: '/v1/tipfloor', priceUnits: 1_000, category: 'timing', tags: ['jito', 'tips', 'bundles', 'mev'],
    summary: 'Jito bundle-tip floor and rolling history',
    description: 'Percentiles (p50/p95/p99) and EMA of lamports paid to the Jito tip accounts by landed transactions, from the live stream, with a rolling history. Cached about 60 s unless fresh=true.',
    query: p.Type.Object({ fresh: p.Type.Optional(p.boolean({ description: 'true bypasses the ~60 s cache.', default: false })) }),
    example: { fresh: 'false' },
    response: R.tipfloor, preview: { cut: { history: N }, withhold: [] },
  }),
  endpoint({
    path: '/v1/epoch', priceUnits: 1_000, category: 'timing', tags: ['epoch', 'slots', 'eta'],
    summary: 'Epoch progress and ETA to epoch end',
    description: 'Epoch, slot index, slots in epoch and seconds to epoch end from two labelled measured slot rates.',
    query: p.Type.Object({ rate: p.Type.Optional(p.oneOf(['primary', 'alt', 'both'] as const, { description: 'Slot rate(s) to report.', default: 'both' })) }),
    example: { rate: 'both' },
    response: R.epoch, preview: { cut: {}, withhold: ['slotRates'] },
  }),
  endpoint({
    path: '/v1/lending/markets', priceUnits: 1_000, category: 'defi', tags: ['lending', 'tvl', 'defi'],
    summary: 'Lending markets with TVL',
    description: 'Trimmed list of Solana lending markets (Kamino Lend): name, market address and TVL in USD (supplied minus borrowed, summed over reserves), largest first.',
    query: p.Type.Object({ limit: p.Type.Optional(p.integer({ description: 'Markets returned (1-100).', minimum: 1, maximum: 100, default: 100 })) }),
    example: { limit: '10' },
    response: R.lendingMarkets, preview: { cut: { markets: N }, withhold: [] },
  }),
  endpoint({
    path: '/v1/sgp-checkpoint', priceUnits: 5_000, category: 'timing', tags: ['epoch', 'slot-rate', 'checkpoint'],
    summary: 'Measured slot rate, epoch ETA and last transition',
    description: 'A series of (epoch, slot index, time) checkpoints: latest position, measured slot duration and baseline span, ISO ETA of epoch end, recent points and the last epoch transition.',
    query: p.Type.Object({ n: p.Type.Optional(p.integer({ description: 'Points in series.recent (1-200).', minimum: 1, maximum: 200, default: 20 })) }),
    example: { n: '20' },
    response: R.sgpCheckpoint, preview: { cut: { 'series.recent': N }, withhold: [] },
  }),
  endpoint({
    path: '/v1/token-risk', priceUnits: 28_000, category: 'intelligence', tags: ['risk', 'token', 'token-2022', 'authorities'],
    summary: 'Heuristic token risk scan',
    description: 'Mint and freeze authorities, every Token-2022 extension (permanent delegate, transfer hook and its upgradeability, transfer fee now and scheduled, default-frozen accounts, non-transferable, close authority, pausable, confidential transfer, interest-bearing, scaled UI amount) with factual notes, top-10 concentration and holder/age context, with a threshold-stated band and summary.',
    query: mintParam('scan'), example: { mint: BONK },
    response: R.tokenRisk, preview: { cut: { flags: N, extensions: N }, withhold: ['context'] },
  }),
  endpoint({
    path: '/v1/wallet-scan', priceUnits: 20_000, category: 'forensics', tags: ['wallet', 'activity', 'profile'],
    summary: 'Wallet activity profile',
    description: 'Profile band with stated thresholds (empty: no SOL and no token accounts; otherwise by signatures in the latest 1000: fresh < 10, active 10-49, heavy >= 50), SOL balance, recent signatures, SPL Token and Token-2022 accounts, and wallet age from the oldest signature (a lower bound when history exceeds the window).',
    query: p.Type.Object({ address: p.address({ description: 'Base58 wallet address.' }) }), example: { address: EXAMPLE_WALLET },
    response: R.walletScan, preview: { cut: { 'tokens.listed': N }, withhold: [] },
  }),
  endpoint({
    path: '/v1/token-intel', priceUnits: 50_000, category: 'intelligence', tags: ['risk', 'token', 'holders', 'digest'],
    summary: 'Token risk plus digest and holder classification',
    description: 'The full token-risk analysis plus a digest (risk band, can still mint, can freeze, top-10 concentration, Token-2022) and a classification of top holders (burn/system labelled, others unresolved with owner shown).',
    query: mintParam('analyse'), example: { mint: JUP },
    response: R.tokenIntel, preview: { cut: { flags: N, extensions: N, 'holders.classification': N }, withhold: ['context'] },
  }),
  endpoint({
    path: '/v1/batch/token-risk', priceUnits: 100_000, category: 'intelligence', tags: ['risk', 'batch', 'token'],
    summary: 'Token risk for up to 10 mints',
    description: 'Token risk for up to 10 distinct mints in one call (duplicates removed); each element carries its result or an explicit error such as invalid_mint.',
    query: p.Type.Object({ mints: p.stringList({ description: 'Comma-separated mint addresses, up to 10 distinct.', maxItems: 10 }) }),
    example: { mints: `${BONK},${JUP},${USDC}` },
    response: R.batchTokenRisk, preview: { cut: { results: N }, withhold: [] },
  }),
  endpoint({
    path: '/v1/priority-fee', priceUnits: 2_000, category: 'execution', tags: ['priority-fee', 'compute-units', 'fees'],
    summary: 'Observed priority-fee distribution',
    description: 'Compute-unit prices of recently landed non-vote transactions (micro-lamports per CU): p50/p75/p90/p99 and four suggested bands, optionally narrowed to transactions write-locking given accounts. Observed history, not a prediction.',
    query: p.Type.Object({ accounts: p.Type.Optional(p.addressList({ description: 'Comma-separated addresses (up to 128); only transactions write-locking them count.', maxItems: 128 })) }),
    example: { accounts: JUP },
    response: R.priorityFee, preview: { cut: {}, withhold: ['suggestedBands'] },
  }),
  endpoint({
    path: '/v1/dex-quote', priceUnits: 3_000, category: 'market', tags: ['quote', 'swap', 'dex'],
    summary: 'Aggregated swap quote',
    description: 'Output amount, minimum received at the given slippage, USD value, price-impact band, route hops and AMMs, and the quote slot. Not an execution guarantee.',
    query: p.Type.Object({
      inputMint: p.address({ description: 'Mint sold.' }),
      outputMint: p.address({ description: 'Mint bought.' }),
      amount: p.atomicAmount({ description: 'Amount in base units of the input mint.' }),
      slippageBps: p.Type.Optional(slippageBps),
    }),
    example: { inputMint: WSOL, outputMint: USDC, amount: '1000000000', slippageBps: '50' },
    response: R.dexQuote, preview: { cut: {}, withhold: ['route.path'] },
  }),
  endpoint({
    path: '/v1/trending-tokens', priceUnits: 5_000, category: 'market', tags: ['trending', 'pools', 'market'],
    summary: 'Trending pools',
    description: 'Trending Solana pools: name, base mint, 1h/6h/24h price change, 24h volume, liquidity, FDV, market cap, transaction counts and pool age.',
    query: p.Type.Object({ limit: p.Type.Optional(poolLimit) }), example: { limit: '5' },
    response: R.trendingTokens, preview: { cut: { pools: N }, withhold: [] },
  }),
  endpoint({
    path: '/v1/new-pairs', priceUnits: 5_000, category: 'market', tags: ['new', 'pools', 'market'],
    summary: 'Newest liquidity pools (unvetted)',
    description: 'Newest Solana liquidity pools with age in minutes and creation time, price change, volume and liquidity. Unvetted.',
    query: p.Type.Object({ limit: p.Type.Optional(poolLimit) }), example: { limit: '5' },
    response: R.newPairs, preview: { cut: { pools: N }, withhold: [] },
  }),
  endpoint({
    path: '/v1/nft-collection', priceUnits: 3_000, category: 'market', tags: ['nft', 'collection', 'floor'],
    summary: 'NFT collection snapshot',
    description: 'Floor (lowest current ask) in SOL and lamports, listed count, 24h average price and 7-day volume of a marketplace collection.',
    query: p.Type.Object({ symbol: p.patterned({ description: 'Marketplace collection symbol, e.g. mad_lads.', pattern: '^[A-Za-z0-9_-]+$', minLength: 1, maxLength: 64 }) }),
    example: { symbol: 'mad_lads' },
    response: R.nftCollection, preview: { cut: {}, withhold: ['volume7dSol', 'sales7d'] },
  }),
  endpoint({
    path: '/v1/tx-inspect', priceUnits: 10_000, category: 'forensics', tags: ['transaction', 'decode', 'balances'],
    summary: 'Decoded transaction summary',
    description: 'Success, fee, compute units, programs invoked (well-known program ids named, others unknown), SOL and token balance changes, Jito tips, slot and block time of a confirmed transaction; 404 for an unknown signature. On-chain effects only.',
    query: p.Type.Object({ sig: p.signature({ description: 'Base58 transaction signature.' }) }), example: { sig: EXAMPLE_SIG },
    response: R.txInspect, preview: { cut: { programsInvoked: N, solBalanceChanges: N, tokenBalanceChanges: N }, withhold: [] },
  }),
  endpoint({
    path: '/v1/pretrade', priceUnits: 100_000, category: 'intelligence', tags: ['pretrade', 'bundle', 'risk', 'fees'],
    summary: 'Pre-trade sweep',
    description: 'Token-intel bundle, the largest holder\'s wallet profile, priority-fee bands and a factual checklist (authorities revoked, top-10 under 50%, no risky Token-2022 extension, largest holder not fresh); each failed part is an explicit error field; 404 for an unknown mint, 502 when every part failed.',
    query: mintParam('sweep'), example: { mint: BONK },
    response: R.pretrade, preview: { cut: { checklist: N }, withhold: ['tokenIntel', 'largestHolder.profile'] },
  }),
];

/** The path of a paid endpoint: one of the catalog's. */
export type PaidPath = (typeof ENTRIES)[number]['path'];

/**
 * The answer of paid path `P` as its response schema types it. Like the schema it names the fields
 * an answer must have; an answer built elsewhere may carry more (the schemas allow them).
 */
export type ResponseOf<P extends PaidPath> = ResponseByPath[P];

/** Each path's answer, worked out once: `Static` over a generic `P` made tsc work out typebox's `StaticType` variance (development.md). */
type ResponseByPath = { readonly [E in (typeof ENTRIES)[number] as E['path']]: Static<E['response']> };

/** All paid endpoints, in the order of docs/contract.md#paid-endpoints. */
export const CATALOG: readonly EndpointEntry[] = Object.freeze(ENTRIES.map((e) => Object.freeze(e)));

/** Paid endpoint by exact path. */
export const CATALOG_BY_PATH: ReadonlyMap<string, EndpointEntry> = new Map(CATALOG.map((e) => [e.path, e]));

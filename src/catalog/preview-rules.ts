/**
 * What the free daily preview (`GET /preview/<paid path>`, docs/preview.md) shows of each paid
 * answer: one rule per paid path, as data. A rule only removes: lists are cut to their first
 * items and detail fields are withheld, so a person can judge what the endpoint returns without
 * the preview standing in for the paid call. The rules are applied generically
 * (src/preview/truncate-answer.ts) and rendered into the docs table by scripts/generate-docs.ts.
 */
import type { PaidPath } from './responses.ts';

/** How many items a cut list keeps unless its rule says otherwise. */
export const PREVIEW_LIST_ITEMS = 3;

/**
 * Paths are dotted field names from the top of the answer (`series.recent`). A path that an
 * answer lacks (a failed part, an optional field) is left alone: nothing is cut there.
 */
export interface PreviewRule {
  /** Lists kept to their first N items, by path. */
  readonly cut: Readonly<Record<string, number>>;
  /** Fields left out of the preview, by path. */
  readonly withhold: readonly string[];
}

const N = PREVIEW_LIST_ITEMS;

// biome-ignore format: a table, one rule per line
const RULES: Readonly<Record<PaidPath, PreviewRule>> = {
  '/v1/smri': { cut: {}, withhold: ['components'] },
  '/v1/simulate': { cut: { logs: N, programsInvoked: N }, withhold: [] },
  '/v1/decision': { cut: { warnings: N }, withhold: ['components', 'evidence', 'policy.rules', 'policy.effective'] },
  '/v1/token-holders': { cut: { 'largestAccounts.accounts': N }, withhold: [] },
  '/v1/slippage-map': { cut: { points: N }, withhold: ['depth'] },
  '/v1/tipfloor': { cut: { history: N }, withhold: [] },
  '/v1/epoch': { cut: {}, withhold: ['slotRates'] },
  '/v1/lending/markets': { cut: { markets: N }, withhold: [] },
  '/v1/sgp-checkpoint': { cut: { 'series.recent': N }, withhold: [] },
  '/v1/token-risk': { cut: { flags: N, extensions: N }, withhold: ['context'] },
  '/v1/wallet-scan': { cut: { 'tokens.listed': N }, withhold: [] },
  '/v1/token-intel': { cut: { flags: N, extensions: N, 'holders.classification': N }, withhold: ['context'] },
  '/v1/batch/token-risk': { cut: { results: N }, withhold: [] },
  '/v1/priority-fee': { cut: {}, withhold: ['suggestedBands'] },
  '/v1/dex-quote': { cut: {}, withhold: ['route.path'] },
  '/v1/trending-tokens': { cut: { pools: N }, withhold: [] },
  '/v1/new-pairs': { cut: { pools: N }, withhold: [] },
  '/v1/nft-collection': { cut: {}, withhold: ['volume7dSol', 'sales7d'] },
  '/v1/tx-inspect': { cut: { programsInvoked: N, solBalanceChanges: N, tokenBalanceChanges: N }, withhold: [] },
  '/v1/pretrade': { cut: { checklist: N }, withhold: ['tokenIntel', 'largestHolder.profile'] },
};

/** The preview rule of every paid path (a unit test holds it to exactly one per catalog entry). */
export const PREVIEW_RULES: Readonly<Record<string, PreviewRule>> = RULES;

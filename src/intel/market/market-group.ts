/**
 * The market group: dex-quote, slippage-map, trending-tokens, new-pairs, nft-collection and
 * lending/markets, each from its market source client (Jupiter, GeckoTerminal, Magic Eden,
 * Kamino Lend). In embedded mode `deps.market` points all four at the localnet's stand-ins, which
 * serve the same paths and shapes; in mainnet mode at the configured public services.
 */
import { createGeckoTerminalClient } from '../../market-apis/geckoterminal-client.ts';
import { createJupiterClient } from '../../market-apis/jupiter-client.ts';
import { createLendingClient } from '../../market-apis/lending-client.ts';
import { createMagicEdenClient } from '../../market-apis/magiceden-client.ts';
import { type HandlerDeps, handlerMap } from '../handler-group.ts';
import { createDexQuoteHandler } from './dex-quote.ts';
import { createLendingMarketsHandler } from './lending-markets.ts';
import { createNftCollectionHandler } from './nft-collection.ts';
import { createPoolListHandlers } from './pool-lists.ts';
import { createQuoteSource } from './quote-source.ts';
import { createSlippageMapHandler } from './slippage-map.ts';

/** Builds the market group over the configured market sources. */
export function createMarketGroup(deps: HandlerDeps) {
  const timeoutMs = deps.settings.marketTimeoutMs;
  const quotes = createQuoteSource(createJupiterClient({ baseUrl: deps.market.jupiter, apiKey: deps.settings.jupiterApiKey, timeoutMs }));
  const lists = createPoolListHandlers(createGeckoTerminalClient({ baseUrl: deps.market.geckoterminal, timeoutMs }));
  const nft = createNftCollectionHandler(createMagicEdenClient({ baseUrl: deps.market.magiceden, apiKey: deps.settings.magicedenApiKey, timeoutMs }));
  const lending = createLendingMarketsHandler(createLendingClient({ baseUrl: deps.market.lending, timeoutMs }));
  return {
    handlers: handlerMap({
      '/v1/dex-quote': createDexQuoteHandler(quotes),
      '/v1/slippage-map': createSlippageMapHandler(quotes, deps.pool),
      '/v1/trending-tokens': lists.trending,
      '/v1/new-pairs': lists.newPairs,
      '/v1/nft-collection': nft,
      '/v1/lending/markets': lending,
    }),
  };
}

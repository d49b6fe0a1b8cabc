/**
 * `/v1/dex-quote`: one aggregated ExactIn quote. Output and route come from Jupiter; minReceived
 * is computed here from slippageBps (floor(out * (10000 - bps) / 10000)); the USD value is
 * Jupiter's own `swapUsdValue` (USD value of the input at Jupiter's prices), `unknown` when the
 * source sends none; the impact band uses IMPACT_BAND_THRESHOLDS_PCT. A quote, not an execution.
 */
import type { JupiterQuote } from '../../market-apis/jupiter-client.ts';
import { orUnknown, UNKNOWN } from '../unknown.ts';
import { fractionToPct, IMPACT_BAND_THRESHOLDS_PCT, impactBand, minReceived } from './market-math.ts';
import { checkQuoteParams, quoteRefusal, QUOTE_CACHE_TTL_MS, type QuoteSource } from './quote-source.ts';

export const DEFAULT_SLIPPAGE_BPS = 50;
export const USD_VALUE_SOURCE = 'jupiter quote swapUsdValue (USD value of the input at Jupiter prices)';

/** The answer for one quote (pure). */
export function dexQuoteAnswer(q: JupiterQuote, slippageBps: number, fetchedAtMs: number, cached: boolean) {
  const pct = q.priceImpactFraction === null ? null : fractionToPct(q.priceImpactFraction);
  return {
    pair: { inputMint: q.inputMint, outputMint: q.outputMint },
    input: { amount: q.inAmount.toString() },
    output: {
      amount: q.outAmount.toString(),
      minReceived: minReceived(q.outAmount, slippageBps).toString(),
      swapUsdValue: orUnknown(q.swapUsdValue),
      swapUsdValueSource: USD_VALUE_SOURCE,
    },
    slippageBps,
    priceImpact: {
      pct: orUnknown(pct),
      band: pct === null ? UNKNOWN : impactBand(pct),
      thresholdsPct: IMPACT_BAND_THRESHOLDS_PCT,
      rule: 'minimal < 0.1 % <= low < 1 % <= moderate < 5 % <= high',
    },
    route: {
      hops: q.routePlan.length,
      path: q.routePlan.map((l) => ({
        amm: l.amm,
        ammKey: l.ammKey ?? 'unknown',
        inputMint: l.inputMint ?? 'unknown',
        outputMint: l.outputMint ?? 'unknown',
        percent: l.percent ?? 'unknown',
      })),
    },
    contextSlot: orUnknown(q.contextSlot),
    freshness: { contextSlot: q.contextSlot ?? 'unknown', quotedAt: new Date(fetchedAtMs).toISOString(), fromCache: cached, cacheTtlMs: QUOTE_CACHE_TTL_MS },
    source: 'jupiter',
    note: 'A quote only: not an execution guarantee; nothing is signed or sent.',
  };
}

/** The `/v1/dex-quote` handler over a quote source. */
export function createDexQuoteHandler(quotes: QuoteSource) {
  return async (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => {
    const inputMint = String(query.inputMint);
    const outputMint = String(query.outputMint);
    const amount = BigInt(String(query.amount));
    const slippageBps = typeof query.slippageBps === 'number' ? query.slippageBps : DEFAULT_SLIPPAGE_BPS;
    checkQuoteParams(inputMint, outputMint, amount);
    const q = await quotes.get({ inputMint, outputMint, amount, slippageBps }, signal);
    if (!q.result.ok) throw quoteRefusal(q.result.errorCode, q.result.message);
    return dexQuoteAnswer(q.result.quote, slippageBps, q.fetchedAtMs, q.shared);
  };
}

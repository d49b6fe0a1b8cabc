/**
 * Jupiter quotes behind a short single-flight cache, shared by dex-quote and slippage-map: N
 * concurrent identical quotes (same pair, amount and slippage) make one upstream call. A
 * "no route" answer is a value and is cached like a quote; faults are not cached.
 */
import { createSingleFlightCache } from '../../caches/single-flight-cache.ts';
import type { JupiterClient, QuoteRequest, QuoteResult } from '../../market-apis/jupiter-client.ts';
import { ServiceError } from '../../errors.ts';
import { U64_MAX } from './market-math.ts';

/** Quotes move with every slot (~400 ms); 2 s keeps bursts to one upstream call and stays fresh. */
export const QUOTE_CACHE_TTL_MS = 2_000;
export const QUOTE_CACHE_MAX = 2_000;

/** A quote result with when it was fetched. */
export interface SourcedQuote {
  readonly result: QuoteResult;
  readonly fetchedAtMs: number;
  readonly shared: boolean;
}

export interface QuoteSource {
  get(req: QuoteRequest, signal?: AbortSignal): Promise<SourcedQuote>;
}

/** Creates the cached quote source over a Jupiter client. */
export function createQuoteSource(jupiter: JupiterClient, ttlMs: number = QUOTE_CACHE_TTL_MS): QuoteSource {
  const cache = createSingleFlightCache<QuoteResult>({ max: QUOTE_CACHE_MAX, ttlMs });
  return {
    async get(req, signal) {
      const key = `${req.inputMint}|${req.outputMint}|${req.amount}|${req.slippageBps}`;
      // The load is detached from any one caller: it must outlive a caller that aborts.
      const hit = await cache.get(key, () => jupiter.quote(req), signal);
      return { result: hit.value, fetchedAtMs: hit.loadedAtMs, shared: hit.shared };
    },
  };
}

/** 400 for a pair or amount no quote can exist for; checked before any upstream call. */
export function checkQuoteParams(inputMint: string, outputMint: string, amount: bigint, param = 'amount'): void {
  if (inputMint === outputMint) throw new ServiceError('invalid_parameter', 'inputMint and outputMint must differ', { param: 'outputMint' });
  if (amount <= 0n || amount > U64_MAX) throw new ServiceError('invalid_parameter', `${param} must be between 1 and 2^64-1 base units`, { param });
}

/** Maps Jupiter's documented refusal codes to the service's faults. */
export function quoteRefusal(errorCode: string, message: string): ServiceError {
  const details = { source: 'jupiter', upstreamCode: errorCode };
  if (errorCode === 'TOKEN_NOT_TRADABLE' || errorCode === 'COULD_NOT_FIND_ANY_ROUTE' || errorCode === 'NO_ROUTES_FOUND') {
    return new ServiceError('not_found', `No swap route for this pair and amount (${errorCode})`, details);
  }
  return new ServiceError('invalid_request', `The quote source refused the request: ${message}`, details);
}

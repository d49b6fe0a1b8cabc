/**
 * Jupiter Swap API v1 quote client: `GET {base}/swap/v1/quote` (dev.jup.ag/docs/api/swap-api/quote).
 * Default base `https://api.jup.ag`: keyless requests are rate limited (about 0.5/s per Jupiter's
 * plans page); an API key from portal.jup.ag travels in the `x-api-key` header Jupiter documents.
 *
 * A route-level refusal (HTTP 400 with `errorCode` such as COULD_NOT_FIND_ANY_ROUTE or
 * TOKEN_NOT_TRADABLE) is an expected outcome returned as data; faults throw ServiceError.
 */
import { createMarketHttp, malformed, unexpectedStatus, type MarketHttp } from './market-http.ts';
import { readAmount, readInteger, readNumber, readObject, readString } from './market-json.ts';

export const JUPITER_SOURCE = 'jupiter';

export interface JupiterClientConfig {
  readonly baseUrl: string;
  readonly apiKey?: string | null;
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
}

export interface QuoteRequest {
  readonly inputMint: string;
  readonly outputMint: string;
  /** Input amount in base units. */
  readonly amount: bigint;
  readonly slippageBps: number;
}

/** One leg of Jupiter's `routePlan`. */
export interface RouteLeg {
  readonly amm: string;
  readonly ammKey: string | null;
  readonly inputMint: string | null;
  readonly outputMint: string | null;
  readonly percent: number | null;
}

export interface JupiterQuote {
  readonly inputMint: string;
  readonly outputMint: string;
  readonly inAmount: bigint;
  readonly outAmount: bigint;
  readonly otherAmountThreshold: bigint | null;
  readonly slippageBps: number;
  /** Jupiter's `priceImpactPct`, a decimal fraction (0.01 = 1 %); null when absent. */
  readonly priceImpactFraction: number | null;
  readonly routePlan: readonly RouteLeg[];
  readonly contextSlot: number | null;
  /** USD value of the input as Jupiter computes it (`swapUsdValue`); null when not sent. */
  readonly swapUsdValue: number | null;
}

/** A quote, or Jupiter's documented reason for having none. */
export type QuoteResult = { readonly ok: true; readonly quote: JupiterQuote } | { readonly ok: false; readonly errorCode: string; readonly message: string };

export interface JupiterClient {
  quote(req: QuoteRequest, signal?: AbortSignal): Promise<QuoteResult>;
}

function parseLeg(v: unknown): RouteLeg | null {
  const leg = readObject(v);
  const info = readObject(leg?.swapInfo);
  if (leg === null || info === null) return null;
  return {
    amm: readString(info.label) ?? 'unknown',
    ammKey: readString(info.ammKey),
    inputMint: readString(info.inputMint),
    outputMint: readString(info.outputMint),
    percent: readNumber(leg.percent),
  };
}

/** Reads a Jupiter quote body; null when a required field is missing or malformed. */
export function parseQuote(body: unknown): JupiterQuote | null {
  const q = readObject(body);
  if (q === null) return null;
  const inAmount = readAmount(q.inAmount);
  const outAmount = readAmount(q.outAmount);
  const inputMint = readString(q.inputMint);
  const outputMint = readString(q.outputMint);
  if (inAmount === null || outAmount === null || inputMint === null || outputMint === null || !Array.isArray(q.routePlan)) return null;
  const legs = q.routePlan.map(parseLeg);
  if (legs.some((l) => l === null)) return null;
  return {
    inputMint,
    outputMint,
    inAmount,
    outAmount,
    otherAmountThreshold: readAmount(q.otherAmountThreshold),
    slippageBps: readInteger(q.slippageBps) ?? 0,
    priceImpactFraction: readNumber(q.priceImpactPct),
    routePlan: legs as RouteLeg[],
    contextSlot: readInteger(q.contextSlot),
    swapUsdValue: readNumber(q.swapUsdValue),
  };
}

/** Creates the client; `http` may be injected (tests), otherwise built from the config. */
export function createJupiterClient(config: JupiterClientConfig, http?: MarketHttp): JupiterClient {
  const h =
    http ??
    createMarketHttp({
      source: JUPITER_SOURCE,
      baseUrl: config.baseUrl,
      headers: config.apiKey ? { 'x-api-key': config.apiKey } : {},
      ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
      ...(config.maxRetries === undefined ? {} : { maxRetries: config.maxRetries }),
    });
  return {
    async quote(req, signal) {
      const query = {
        inputMint: req.inputMint,
        outputMint: req.outputMint,
        amount: req.amount.toString(),
        slippageBps: String(req.slippageBps),
        swapMode: 'ExactIn',
      };
      const res = await h.getJson('/swap/v1/quote', query, signal);
      if (res.status === 200) {
        const quote = parseQuote(res.body);
        if (quote === null) throw malformed(JUPITER_SOURCE, 'quote');
        return { ok: true, quote };
      }
      const err = readObject(res.body);
      const errorCode = readString(err?.errorCode);
      if (res.status === 400 && errorCode !== null) return { ok: false, errorCode, message: readString(err?.error) ?? errorCode };
      throw unexpectedStatus(JUPITER_SOURCE, res);
    },
  };
}

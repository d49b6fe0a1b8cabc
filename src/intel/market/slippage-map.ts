/**
 * `/v1/slippage-map`: quotes the pair at up to 8 multiples of a base size, at most
 * SWEEP_CONCURRENCY quotes in flight, then runs the curve math (impact and band per point, rate
 * drop against the smallest size, depth under 1 % and 5 %) in the worker pool as the named task
 * `slippageCurve`. A size that could not be quoted carries an explicit `error` and `unknown`
 * values; if no size could be quoted because the source is down, the call fails with 502.
 */
import { ServiceError } from '../../errors.ts';
import type { TaskRunner } from '../../pool/worker-pool.ts';
import { mapBounded } from './map-bounded.ts';
import { DEPTH_THRESHOLDS_PCT, IMPACT_BAND_THRESHOLDS_PCT, sizeForMult, U64_MAX, type CurveInputPoint, type CurveOutput } from './market-math.ts';
import { checkQuoteParams, quoteRefusal, type QuoteSource, type SourcedQuote } from './quote-source.ts';
import { DEFAULT_SLIPPAGE_BPS, USD_VALUE_SOURCE } from './dex-quote.ts';

/** Quotes in flight at once per sweep: enough to overlap round trips, gentle on the source's rate limit. */
export const SWEEP_CONCURRENCY = 4;
export const DEFAULT_MULTS: readonly number[] = [0.1, 1, 10, 100];
const METHOD =
  "Each size is a separate Jupiter ExactIn quote; priceImpactPct is the source's price impact of that size (fraction x 100); band: minimal < 0.1 % <= low < 1 % <= moderate < 5 % <= high; depth = largest tested size strictly under 1 % / 5 % impact, maxUsd its swapUsdValue; rateDropVsSmallestPct = output per input unit against the smallest quoted size.";

function sizes(amount: bigint, mults: readonly number[]): bigint[] {
  return mults.map((m) => {
    const size = sizeForMult(amount, m);
    if (size <= 0n || size > U64_MAX) {
      throw new ServiceError('invalid_parameter', `mults element ${m} gives ${size} base units; each size must be 1 to 2^64-1`, { param: 'mults' });
    }
    return size;
  });
}

function describe(reason: unknown): { point: string; fault: ServiceError | null } {
  if (reason instanceof ServiceError) return { point: `${reason.code}: ${reason.body.message}`, fault: reason.status === 502 ? reason : null };
  return { point: 'internal_error: the size could not be quoted', fault: null };
}

interface Collected {
  readonly points: CurveInputPoint[];
  /** Why no size got a quote: a 502 fault if any size met one, else the source's refusal. */
  readonly noQuote: ServiceError | null;
}

/** Turns each size's settled quote into a curve input point; failures become explicit errors. */
function collect(settled: readonly PromiseSettledResult<SourcedQuote>[], mults: readonly number[], sizeList: readonly bigint[]): Collected {
  let fault: ServiceError | null = null;
  let refusal: ServiceError | null = null;
  let quoted = 0;
  const points = settled.map((s, i): CurveInputPoint => {
    const base = { mult: mults[i]!, sizeBaseUnits: sizeList[i]!.toString() };
    const empty = { ...base, outAmount: null, priceImpactFraction: null, swapUsdValue: null, contextSlot: null, hops: null };
    if (s.status === 'rejected') {
      const d = describe(s.reason);
      fault ??= d.fault;
      return { ...empty, error: d.point };
    }
    if (!s.value.result.ok) {
      const r = quoteRefusal(s.value.result.errorCode, s.value.result.message);
      refusal ??= r;
      return { ...empty, error: `${r.code}: ${r.message}` };
    }
    quoted++;
    const q = s.value.result.quote;
    return {
      ...base,
      outAmount: q.outAmount.toString(),
      priceImpactFraction: q.priceImpactFraction,
      swapUsdValue: q.swapUsdValue,
      contextSlot: q.contextSlot,
      hops: q.routePlan.length,
      error: null,
    };
  });
  return {
    points,
    noQuote: quoted > 0 ? null : (fault ?? refusal ?? new ServiceError('upstream_unavailable', 'no size could be quoted', { source: 'jupiter' })),
  };
}

/** The pool task the slippage map runs: the curve over the quoted sizes. */
export interface SlippagePoolTasks {
  slippageCurve(input: { readonly points: readonly CurveInputPoint[] }): CurveOutput;
}

/** The `/v1/slippage-map` handler. */
export function createSlippageMapHandler(quotes: QuoteSource, pool: TaskRunner<SlippagePoolTasks>) {
  return async (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => {
    const inputMint = String(query.inputMint);
    const outputMint = String(query.outputMint);
    const amount = BigInt(String(query.amount));
    const slippageBps = typeof query.slippageBps === 'number' ? query.slippageBps : DEFAULT_SLIPPAGE_BPS;
    const mults = Array.isArray(query.mults) ? (query.mults as number[]) : DEFAULT_MULTS;
    checkQuoteParams(inputMint, outputMint, amount);
    const sizeList = sizes(amount, mults);
    const settled = await mapBounded(sizeList, SWEEP_CONCURRENCY, (size) => {
      // A caller who went away starts no further upstream calls.
      if (signal.aborted) return Promise.reject(signal.reason);
      return quotes.get({ inputMint, outputMint, amount: size, slippageBps }, signal);
    });
    if (signal.aborted) throw signal.reason;
    const { points, noQuote } = collect(settled, mults, sizeList);
    if (noQuote) throw noQuote;
    const curve = await pool.runTask('slippageCurve', { points }, signal);
    return {
      pair: { inputMint, outputMint },
      baseAmount: amount.toString(),
      slippageBps,
      points: curve.points,
      depth: curve.depth,
      thresholds: { bandsPct: IMPACT_BAND_THRESHOLDS_PCT, depthPct: DEPTH_THRESHOLDS_PCT },
      method: METHOD,
      swapUsdValueSource: USD_VALUE_SOURCE,
      source: 'jupiter',
      note: 'A quote only: nothing is signed, sent or executed.',
    };
  };
}

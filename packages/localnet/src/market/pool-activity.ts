/**
 * Rolling per-pool trade statistics built from the swaps observed on the chain's `transaction`
 * events, in the windows GeckoTerminal reports (m5, h1, h6, h24).
 *
 * A swap is recognised from the pool's two vault accounts: in a successful transaction one vault
 * balance goes up and the other goes down (pre/postTokenBalances). The base vault going up is a
 * sell of the base token, going down a buy; the trader is the fee payer. Deposits and withdrawals
 * (both vaults moving the same way) are not trades.
 *
 * Memory is bounded: trades are folded into one-minute buckets, buckets older than 24 h are
 * dropped (keeping only the last dropped close price as the h24 reference), and each bucket keeps
 * at most `MAX_TRADERS_PER_BUCKET` distinct buyer/seller addresses, so unique-trader counts are
 * exact up to that many traders per minute and a lower bound beyond.
 */
import type { ExecutedTransaction, PoolState, TokenBalanceData } from '../chain/types.ts';
import { basePriceInQuote, baseMintOf, createPriceBook, quoteMintOf } from './market-prices.ts';
import { toUiAmount } from './cp-quote.ts';

export const BUCKET_SECONDS = 60;
export const HISTORY_SECONDS = 24 * 3600;
export const MAX_TRADERS_PER_BUCKET = 256;
/** GeckoTerminal's window names and their lengths in seconds. */
export const WINDOW_SECONDS = { m5: 300, h1: 3600, h6: 21_600, h24: 86_400 } as const;
export type WindowName = keyof typeof WINDOW_SECONDS;
export const WINDOW_NAMES: readonly WindowName[] = ['m5', 'h1', 'h6', 'h24'];

/** A price observation: base priced in quote tokens, plus the quote's USD price when known. */
interface PricePoint {
  readonly inQuote: number;
  readonly quoteUsd: number | null;
}

interface Bucket {
  readonly start: number;
  buys: number;
  sells: number;
  readonly buyers: Set<string>;
  readonly sellers: Set<string>;
  volumeUsd: number;
  /** Swaps whose USD size could not be priced (then the window's volume is unknown). */
  unpriced: number;
  open: PricePoint | null;
  close: PricePoint | null;
}

interface PoolHistory {
  readonly buckets: Bucket[];
  /** Close of the newest bucket already dropped: the price reference older than every bucket. */
  anchor: PricePoint | null;
}

export interface WindowStats {
  readonly buys: number;
  readonly sells: number;
  readonly buyers: number;
  readonly sellers: number;
  /** null when some swap in the window could not be priced in USD. */
  readonly volumeUsd: number | null;
  /** Percent change of the base token price (USD when both ends are USD-priced); 0 with no swaps. */
  readonly priceChangePct: number;
}

export type PoolStats = Readonly<Record<WindowName, WindowStats>>;

export interface PoolActivity {
  /** Folds the swaps of one executed transaction into the windows. */
  observe(tx: ExecutedTransaction, pools: readonly PoolState[]): void;
  /** Window statistics of `pool` at `nowSec`, prices changes measured to its current reserves. */
  stats(pool: PoolState, quoteUsd: number | null, nowSec: number): PoolStats;
}

function vaultAmount(balances: readonly TokenBalanceData[], index: number): bigint | null {
  const row = balances.find((b) => b.accountIndex === index);
  return row === undefined ? null : BigInt(row.amount);
}

interface VaultMove {
  readonly preA: bigint;
  readonly preB: bigint;
  readonly postA: bigint;
  readonly postB: bigint;
}

function vaultMove(tx: ExecutedTransaction, pool: PoolState): VaultMove | null {
  const ia = tx.accountKeys.indexOf(pool.vaultA);
  const ib = tx.accountKeys.indexOf(pool.vaultB);
  if (ia === -1 || ib === -1) return null;
  const [preA, preB] = [vaultAmount(tx.preTokenBalances, ia), vaultAmount(tx.preTokenBalances, ib)];
  const [postA, postB] = [vaultAmount(tx.postTokenBalances, ia), vaultAmount(tx.postTokenBalances, ib)];
  if (preA === null || preB === null || postA === null || postB === null) return null;
  const dA = postA - preA;
  const dB = postB - preB;
  // Opposite signs is a trade; same sign is liquidity moving in or out.
  return (dA > 0n && dB < 0n) || (dA < 0n && dB > 0n) ? { preA, preB, postA, postB } : null;
}

function newBucket(start: number): Bucket {
  return { start, buys: 0, sells: 0, buyers: new Set(), sellers: new Set(), volumeUsd: 0, unpriced: 0, open: null, close: null };
}

function bucketAt(history: PoolHistory, start: number): Bucket {
  const { buckets } = history;
  let i = buckets.length;
  while (i > 0 && (buckets[i - 1] as Bucket).start > start) i--;
  const prev = buckets[i - 1];
  if (prev !== undefined && prev.start === start) return prev;
  const bucket = newBucket(start);
  buckets.splice(i, 0, bucket);
  return bucket;
}

function prune(history: PoolHistory, newestStart: number): void {
  const { buckets } = history;
  while (buckets.length > 0 && (buckets[0] as Bucket).start <= newestStart - HISTORY_SECONDS - BUCKET_SECONDS) {
    const dropped = buckets.shift() as Bucket;
    history.anchor = dropped.close ?? history.anchor;
  }
}

function addTrader(set: Set<string>, trader: string): void {
  if (set.size < MAX_TRADERS_PER_BUCKET) set.add(trader);
}

function usdOf(point: PricePoint): number | null {
  return point.quoteUsd === null ? null : point.inQuote * point.quoteUsd;
}

/** Percent change from `ref` to `now`, in USD when both are USD-priced, else in quote terms. */
function changePct(ref: PricePoint, now: PricePoint): number {
  const [a, b] = [usdOf(ref), usdOf(now)];
  const [from, to] = a !== null && b !== null ? [a, b] : [ref.inQuote, now.inQuote];
  return from === 0 ? 0 : (to / from - 1) * 100;
}

/**
 * The price at the window's start: the close of the last minute before it, else the close of the
 * last dropped minute, else the price before the window's first swap; null with no history.
 */
function referencePrice(history: PoolHistory, older: readonly Bucket[], inWindow: readonly Bucket[]): PricePoint | null {
  for (let i = older.length - 1; i >= 0; i--) {
    const close = (older[i] as Bucket).close;
    if (close !== null) return close;
  }
  return history.anchor ?? inWindow.find((b) => b.open !== null)?.open ?? null;
}

function windowStats(history: PoolHistory, since: number, now: PricePoint | null): WindowStats {
  const inWindow = history.buckets.filter((b) => b.start + BUCKET_SECONDS > since);
  const older = history.buckets.filter((b) => b.start + BUCKET_SECONDS <= since);
  const buyers = new Set<string>();
  const sellers = new Set<string>();
  let buys = 0,
    sells = 0,
    volumeUsd = 0,
    unpriced = 0;
  for (const b of inWindow) {
    buys += b.buys;
    sells += b.sells;
    volumeUsd += b.volumeUsd;
    unpriced += b.unpriced;
    for (const t of b.buyers) buyers.add(t);
    for (const t of b.sellers) sellers.add(t);
  }
  const ref = referencePrice(history, older, inWindow);
  const priceChangePct = ref !== null && now !== null ? changePct(ref, now) : 0;
  return { buys, sells, buyers: buyers.size, sellers: sellers.size, volumeUsd: unpriced > 0 ? null : volumeUsd, priceChangePct };
}

/** Creates an empty activity tracker. */
export function createPoolActivity(): PoolActivity {
  const histories = new Map<string, PoolHistory>();

  function record(tx: ExecutedTransaction, pool: PoolState, move: VaultMove, quoteUsd: number | null, baseUsd: number | null): void {
    const history = histories.get(pool.address) ?? { buckets: [], anchor: null };
    histories.set(pool.address, history);
    const start = Math.floor(tx.blockTime / BUCKET_SECONDS) * BUCKET_SECONDS;
    const bucket = bucketAt(history, start);
    const baseIsA = baseMintOf(pool) === pool.mintA;
    const dBase = baseIsA ? move.postA - move.preA : move.postB - move.preB;
    const dQuote = baseIsA ? move.postB - move.preB : move.postA - move.preA;
    const trader = tx.accountKeys[0] ?? '';
    if (dBase > 0n) {
      bucket.sells++;
      addTrader(bucket.sellers, trader);
    } else {
      bucket.buys++;
      addTrader(bucket.buyers, trader);
    }
    const absQuote = toUiAmount(dQuote < 0n ? -dQuote : dQuote, baseIsA ? pool.decimalsB : pool.decimalsA);
    const absBase = toUiAmount(dBase < 0n ? -dBase : dBase, baseIsA ? pool.decimalsA : pool.decimalsB);
    const usd = quoteUsd !== null ? absQuote * quoteUsd : baseUsd !== null ? absBase * baseUsd : null;
    if (usd === null) bucket.unpriced++;
    else bucket.volumeUsd += usd;
    const pre = basePriceInQuote(pool, move.preA, move.preB);
    const post = basePriceInQuote(pool, move.postA, move.postB);
    if (bucket.open === null && pre !== null) bucket.open = { inQuote: pre, quoteUsd };
    if (post !== null) bucket.close = { inQuote: post, quoteUsd };
    prune(history, history.buckets[history.buckets.length - 1]?.start ?? start);
  }

  return {
    observe(tx, pools) {
      if (tx.err !== null) return;
      const moves = pools.flatMap((pool) => {
        const move = vaultMove(tx, pool);
        return move === null ? [] : [{ pool, move }];
      });
      if (moves.length === 0) return;
      const book = createPriceBook(pools);
      for (const { pool, move } of moves) {
        record(tx, pool, move, book.usdPrice(quoteMintOf(pool)), book.usdPrice(baseMintOf(pool)));
      }
    },
    stats(pool, quoteUsd, nowSec) {
      const history = histories.get(pool.address) ?? { buckets: [], anchor: null };
      const inQuote = basePriceInQuote(pool);
      const now = inQuote === null ? null : { inQuote, quoteUsd };
      const entries = WINDOW_NAMES.map((w) => [w, windowStats(history, nowSec - WINDOW_SECONDS[w], now)] as const);
      return Object.fromEntries(entries) as Record<WindowName, WindowStats>;
    },
  };
}

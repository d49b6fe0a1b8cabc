/**
 * Magic Eden Solana API v2 client (docs.magiceden.io, base api-mainnet.magiceden.dev/v2):
 * `GET /v2/collections/{symbol}/stats` (prices in lamports; `floorPrice` absent when nothing is
 * listed, `avgPrice24hr` absent without a sale in 24 h) and `/activities` (newest first, `price`
 * in SOL). An optional API key travels as `Authorization: Bearer <key>`, as Magic Eden documents.
 *
 * The stats carry no 7-day volume: `salesSince` pages `/activities` (1000 per page, newest first)
 * and sums the `buyNow` sales at or after the cutoff, stopping at the first older activity.
 */
import { createMarketHttp, malformed, unexpectedStatus, type MarketHttp } from './market-http.ts';
import { readInteger, readNumber, readObject, readString } from './market-json.ts';

export const MAGICEDEN_SOURCE = 'magiceden';
export const LAMPORTS_PER_SOL = 1_000_000_000;
/** Largest page Magic Eden serves for activities. */
export const ACTIVITIES_PAGE_LIMIT = 1000;
/** Pages read at most per collection (10,000 activities); beyond it the 7-day sum is unknown. */
export const ACTIVITIES_MAX_PAGES = 10;

export interface MagicEdenClientConfig {
  readonly baseUrl: string;
  readonly apiKey?: string | null;
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
}

export interface CollectionStats {
  readonly symbol: string;
  readonly floorPriceLamports: number | null;
  readonly listedCount: number | null;
  readonly avgPrice24hrLamports: number | null;
  readonly volumeAllLamports: number | null;
}

export interface Activity {
  readonly type: string;
  readonly blockTime: number;
  readonly priceLamports: number;
}

/** Sum of sales since a cutoff; `complete` false when the page cap was hit before reaching it. */
export interface SalesSum {
  readonly complete: boolean;
  readonly count: number;
  readonly lamports: number;
}

export interface MagicEdenClient {
  /** Stats, or null for a symbol Magic Eden does not know. */
  stats(symbol: string, signal?: AbortSignal): Promise<CollectionStats | null>;
  salesSince(symbol: string, sinceUnixSec: number, signal?: AbortSignal): Promise<SalesSum>;
}

/** Reads a stats body; null when it names no collection (Magic Eden answers `{}` for some unknowns). */
export function parseStats(body: unknown, symbol: string): CollectionStats | null {
  const s = readObject(body);
  if (s === null || (readString(s.symbol) === null && readNumber(s.listedCount) === null)) return null;
  return {
    symbol: readString(s.symbol) ?? symbol,
    floorPriceLamports: readNumber(s.floorPrice),
    listedCount: readInteger(s.listedCount),
    avgPrice24hrLamports: readNumber(s.avgPrice24hr),
    volumeAllLamports: readNumber(s.volumeAll),
  };
}

/** Reads an activities page; entries without a time or price are skipped (they are not sales). */
export function parseActivities(body: unknown): Activity[] | null {
  if (!Array.isArray(body)) return null;
  const out: Activity[] = [];
  for (const item of body) {
    const a = readObject(item);
    const blockTime = readInteger(a?.blockTime);
    const price = readNumber(a?.price);
    const type = readString(a?.type);
    if (blockTime === null || price === null || type === null) continue;
    out.push({ type, blockTime, priceLamports: Math.round(price * LAMPORTS_PER_SOL) });
  }
  return out;
}

/** Folds one page into a running sum; `reachedCutoff` once an activity older than the cutoff is seen. */
export function foldSales(
  acc: { count: number; lamports: number },
  page: readonly Activity[],
  sinceUnixSec: number,
): { count: number; lamports: number; reachedCutoff: boolean } {
  let { count, lamports } = acc;
  let reachedCutoff = false;
  for (const a of page) {
    if (a.blockTime < sinceUnixSec) {
      reachedCutoff = true;
      continue;
    }
    if (a.type === 'buyNow') {
      count++;
      lamports += a.priceLamports;
    }
  }
  return { count, lamports, reachedCutoff };
}

/** Creates the client; `http` may be injected (tests). */
export function createMagicEdenClient(config: MagicEdenClientConfig, http?: MarketHttp): MagicEdenClient {
  const h =
    http ??
    createMarketHttp({
      source: MAGICEDEN_SOURCE,
      baseUrl: config.baseUrl,
      headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
      ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
      ...(config.maxRetries === undefined ? {} : { maxRetries: config.maxRetries }),
    });
  const path = (symbol: string, view: string) => `/v2/collections/${encodeURIComponent(symbol)}/${view}`;
  return {
    async stats(symbol, signal) {
      const res = await h.getJson(path(symbol, 'stats'), {}, signal);
      if (res.status === 404) return null;
      if (res.status !== 200) throw unexpectedStatus(MAGICEDEN_SOURCE, res);
      return parseStats(res.body, symbol);
    },
    async salesSince(symbol, sinceUnixSec, signal) {
      let acc = { count: 0, lamports: 0 };
      for (let page = 0; page < ACTIVITIES_MAX_PAGES; page++) {
        const query = { offset: String(page * ACTIVITIES_PAGE_LIMIT), limit: String(ACTIVITIES_PAGE_LIMIT) };
        const res = await h.getJson(path(symbol, 'activities'), query, signal);
        if (res.status !== 200) throw unexpectedStatus(MAGICEDEN_SOURCE, res);
        const items = parseActivities(res.body);
        if (items === null) throw malformed(MAGICEDEN_SOURCE, 'activities page');
        const folded = foldSales(acc, items, sinceUnixSec);
        acc = { count: folded.count, lamports: folded.lamports };
        if (folded.reachedCutoff || (Array.isArray(res.body) && res.body.length < ACTIVITIES_PAGE_LIMIT)) return { complete: true, ...acc };
      }
      return { complete: false, ...acc };
    },
  };
}

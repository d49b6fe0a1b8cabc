/**
 * GeckoTerminal API v2 client (api.geckoterminal.com/docs): `GET {base}/api/v2/networks/solana/
 * trending_pools` and `/new_pools`, JSON:API `pool` resources with numbers as decimal strings.
 * The public API is keyless (about 30 calls/min); the version is pinned with the `Accept` header
 * GeckoTerminal documents. Null or absent figures stay null here and become `unknown` in answers.
 */
import { createMarketHttp, malformed, unexpectedStatus, type MarketHttp } from './market-http.ts';
import { readNumber, readObject, readString } from './market-json.ts';

export const GECKOTERMINAL_SOURCE = 'geckoterminal';
export const GECKOTERMINAL_NETWORK = 'solana';
/** GeckoTerminal's documented API version pin. */
export const GECKOTERMINAL_ACCEPT = 'application/json;version=20230302';

export interface GeckoTerminalClientConfig {
  readonly baseUrl: string;
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
}

export type GeckoList = 'trending_pools' | 'new_pools';
export type GeckoWindow = 'm5' | 'h1' | 'h6' | 'h24';
const WINDOWS: readonly GeckoWindow[] = ['m5', 'h1', 'h6', 'h24'];

export interface TxCounts {
  readonly buys: number;
  readonly sells: number;
}

export interface GeckoPool {
  readonly address: string;
  readonly name: string;
  readonly baseMint: string | null;
  readonly quoteMint: string | null;
  readonly baseSymbol: string | null;
  readonly dex: string | null;
  readonly baseTokenPriceUsd: number | null;
  readonly priceChangePct: Readonly<Record<GeckoWindow, number | null>>;
  readonly volumeUsd: Readonly<Record<GeckoWindow, number | null>>;
  readonly transactions: Readonly<Record<GeckoWindow, TxCounts | null>>;
  readonly reserveUsd: number | null;
  readonly fdvUsd: number | null;
  readonly marketCapUsd: number | null;
  /** ISO 8601, as GeckoTerminal sends `pool_created_at`; null when absent. */
  readonly createdAt: string | null;
}

export interface GeckoTerminalClient {
  /** Page 1 of a list (GeckoTerminal pages hold 20 pools). */
  pools(list: GeckoList, signal?: AbortSignal): Promise<readonly GeckoPool[]>;
}

function perWindow<T>(src: unknown, read: (v: unknown) => T | null): Record<GeckoWindow, T | null> {
  const o = readObject(src);
  return Object.fromEntries(WINDOWS.map((w) => [w, o === null ? null : read(o[w])])) as Record<GeckoWindow, T | null>;
}

function readTx(v: unknown): TxCounts | null {
  const o = readObject(v);
  const buys = readNumber(o?.buys);
  const sells = readNumber(o?.sells);
  return buys === null || sells === null ? null : { buys, sells };
}

/** `solana_<address>` -> `<address>`; GeckoTerminal ids are `<network>_<address>`. */
export function addressOfId(id: unknown): string | null {
  const s = readString(id);
  const prefix = `${GECKOTERMINAL_NETWORK}_`;
  return s?.startsWith(prefix) && s.length > prefix.length ? s.slice(prefix.length) : null;
}

function relationId(rel: unknown, name: string): unknown {
  return readObject(readObject(readObject(rel)?.[name])?.data)?.id;
}

function symbols(included: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(included)) return out;
  for (const item of included) {
    const o = readObject(item);
    const symbol = readString(readObject(o?.attributes)?.symbol);
    const id = readString(o?.id);
    if (o?.type === 'token' && id !== null && symbol !== null) out.set(id, symbol);
  }
  return out;
}

/** Reads one JSON:API pool resource; null when it lacks an address. */
export function parsePool(resource: unknown, tokenSymbols: ReadonlyMap<string, string> = new Map()): GeckoPool | null {
  const r = readObject(resource);
  const a = readObject(r?.attributes);
  const address = readString(a?.address);
  if (r === null || a === null || address === null) return null;
  const baseId = relationId(r.relationships, 'base_token');
  const created = readString(a.pool_created_at);
  return {
    address,
    name: readString(a.name) ?? address,
    baseMint: addressOfId(baseId),
    quoteMint: addressOfId(relationId(r.relationships, 'quote_token')),
    baseSymbol: typeof baseId === 'string' ? (tokenSymbols.get(baseId) ?? null) : null,
    dex: readString(relationId(r.relationships, 'dex')),
    baseTokenPriceUsd: readNumber(a.base_token_price_usd),
    priceChangePct: perWindow(a.price_change_percentage, readNumber),
    volumeUsd: perWindow(a.volume_usd, readNumber),
    transactions: perWindow(a.transactions, readTx),
    reserveUsd: readNumber(a.reserve_in_usd),
    fdvUsd: readNumber(a.fdv_usd),
    marketCapUsd: readNumber(a.market_cap_usd),
    createdAt: created !== null && !Number.isNaN(Date.parse(created)) ? created : null,
  };
}

/** Reads a pools list body; null when it is not a JSON:API document with a `data` array. */
export function parsePoolList(body: unknown): GeckoPool[] | null {
  const doc = readObject(body);
  if (doc === null || !Array.isArray(doc.data)) return null;
  const tokenSymbols = symbols(doc.included);
  const pools = doc.data.map((d) => parsePool(d, tokenSymbols));
  return pools.every((p) => p !== null) ? (pools as GeckoPool[]) : null;
}

/** Creates the client; `http` may be injected (tests). */
export function createGeckoTerminalClient(config: GeckoTerminalClientConfig, http?: MarketHttp): GeckoTerminalClient {
  const h =
    http ??
    createMarketHttp({
      source: GECKOTERMINAL_SOURCE,
      baseUrl: config.baseUrl,
      headers: { accept: GECKOTERMINAL_ACCEPT },
      ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
      ...(config.maxRetries === undefined ? {} : { maxRetries: config.maxRetries }),
    });
  return {
    async pools(list, signal) {
      const res = await h.getJson(`/api/v2/networks/${GECKOTERMINAL_NETWORK}/${list}`, { page: '1', include: 'base_token' }, signal);
      if (res.status !== 200) throw unexpectedStatus(GECKOTERMINAL_SOURCE, res);
      const pools = parsePoolList(res.body);
      if (pools === null) throw malformed(GECKOTERMINAL_SOURCE, `${list} document`);
      return pools;
    },
  };
}

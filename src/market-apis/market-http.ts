/**
 * The one HTTP fetcher of the market-source clients: a per-attempt timeout, bounded retries on
 * network faults, 5xx and 429 (honouring `Retry-After` up to a cap), and JSON parsing. A 4xx other
 * than 429 is returned as data: what it means (unknown collection, no route) is the client's call.
 * Faults become ServiceError `upstream_timeout` / `upstream_unavailable` (502, nothing settled).
 */
import { ServiceError } from '../errors.ts';

/** Per-attempt timeout when the caller configures none. */
export const MARKET_TIMEOUT_MS = 5_000;
/** Retries after the first attempt (so at most 3 requests per call). */
export const MARKET_MAX_RETRIES = 2;
/** First backoff; doubles per retry. */
export const MARKET_BACKOFF_MS = 200;
/** Longest `Retry-After` we wait for inside one paid call; beyond it the call fails with 502. */
export const MAX_RETRY_AFTER_MS = 5_000;

export interface MarketHttpConfig {
  /** Label in error messages and details (`jupiter`, `geckoterminal` ...). */
  readonly source: string;
  readonly baseUrl: string;
  /** Sent on every request (API key headers, Accept). Never logged. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
  readonly backoffMs?: number;
  readonly maxRetryAfterMs?: number;
}

/** A completed exchange with a non-retriable status (2xx or 4xx other than 429). */
export interface MarketResponse {
  readonly status: number;
  /** Parsed JSON, or null when the body was empty or not JSON. */
  readonly body: unknown;
}

export interface MarketHttp {
  readonly source: string;
  /** GET `path` with `query`; resolves with 2xx/4xx answers, throws ServiceError on faults. */
  getJson(path: string, query: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<MarketResponse>;
}

/** Milliseconds to wait from a `Retry-After` value (delta-seconds or HTTP-date), null if absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const v = value.trim();
  if (/^[0-9]+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function parseBody(text: string): unknown {
  if (text.length === 0) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

type Attempt =
  | { readonly kind: 'done'; readonly response: MarketResponse }
  | { readonly kind: 'retry'; readonly waitMs: number | null; readonly fault: ServiceError };

async function attempt(cfg: Required<Omit<MarketHttpConfig, 'headers'>> & MarketHttpConfig, url: string, signal: AbortSignal | undefined): Promise<Attempt> {
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const detail = { source: cfg.source };
  try {
    const res = await fetch(url, { headers: { accept: 'application/json', ...cfg.headers }, signal: combined });
    const body = parseBody(await res.text());
    if (res.status === 429) {
      const waitMs = parseRetryAfter(res.headers.get('retry-after'));
      return {
        kind: 'retry',
        waitMs,
        fault: new ServiceError('upstream_unavailable', `${cfg.source} is rate limiting this service`, {
          ...detail,
          upstreamStatus: 429,
          ...(waitMs === null ? {} : { retryAfterSeconds: Math.ceil(waitMs / 1000) }),
        }),
      };
    }
    if (res.status >= 500) {
      return {
        kind: 'retry',
        waitMs: null,
        fault: new ServiceError('upstream_unavailable', `${cfg.source} answered HTTP ${res.status}`, { ...detail, upstreamStatus: res.status }),
      };
    }
    return { kind: 'done', response: { status: res.status, body } };
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (timeout.aborted) {
      return { kind: 'retry', waitMs: null, fault: new ServiceError('upstream_timeout', `${cfg.source} did not answer within ${cfg.timeoutMs} ms`, detail) };
    }
    const why = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    return { kind: 'retry', waitMs: null, fault: new ServiceError('upstream_unavailable', `${cfg.source} is unreachable (${why})`, detail) };
  }
}

function joinUrl(baseUrl: string, path: string, query: Readonly<Record<string, string>>): string {
  const qs = new URLSearchParams(query).toString();
  return `${baseUrl.replace(/\/+$/, '')}${path}${qs ? `?${qs}` : ''}`;
}

/** Creates the fetcher for one market source. */
export function createMarketHttp(config: MarketHttpConfig): MarketHttp {
  const cfg = {
    ...config,
    timeoutMs: config.timeoutMs ?? MARKET_TIMEOUT_MS,
    maxRetries: config.maxRetries ?? MARKET_MAX_RETRIES,
    backoffMs: config.backoffMs ?? MARKET_BACKOFF_MS,
    maxRetryAfterMs: config.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS,
  };
  return {
    source: config.source,
    async getJson(path, query, signal) {
      const url = joinUrl(cfg.baseUrl, path, query);
      for (let retry = 0; ; retry++) {
        const r = await attempt(cfg, url, signal);
        if (r.kind === 'done') return r.response;
        // A Retry-After longer than the cap cannot be honoured inside one paid call: fail now.
        if (retry >= cfg.maxRetries || (r.waitMs !== null && r.waitMs > cfg.maxRetryAfterMs)) throw r.fault;
        await sleep(r.waitMs ?? cfg.backoffMs * 2 ** retry, signal);
      }
    },
  };
}

/** A 4xx the client did not expect: the source is not answering as documented. */
export function unexpectedStatus(source: string, response: MarketResponse): ServiceError {
  return new ServiceError('upstream_unavailable', `${source} answered HTTP ${response.status}`, { source, upstreamStatus: response.status });
}

/** The source answered 2xx with a body this client cannot read. */
export function malformed(source: string, what: string): ServiceError {
  return new ServiceError('upstream_unavailable', `${source} answered with an unreadable ${what}`, { source });
}

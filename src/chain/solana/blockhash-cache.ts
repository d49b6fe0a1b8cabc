/**
 * A recent blockhash kept warm for Solana 402 challenges (`extra.recentBlockhash`), so payers
 * skip a getLatestBlockhash round trip and no request ever fetches one. Refreshed on a timer; a
 * value older than the blockhash validity horizon is dropped rather than served.
 */
import type { RpcClient } from './rpc-client.ts';

/** How often the cached blockhash is refreshed. */
export const BLOCKHASH_REFRESH_MS = 2_000;
/**
 * A blockhash is valid for 150 blocks (about 60 s at 400 ms slots). After this long without a
 * successful refresh the cached one is withheld: a challenge without it is better than a dead one.
 */
export const BLOCKHASH_MAX_AGE_MS = 45_000;

export interface CachedBlockhash {
  readonly blockhash: string;
  readonly lastValidBlockHeight: number;
  readonly fetchedAtMs: number;
}

export interface BlockhashCacheConfig {
  readonly rpc: Pick<RpcClient, 'getLatestBlockhash'>;
  readonly refreshMs?: number;
  readonly maxAgeMs?: number;
  readonly now?: () => number;
}

export interface BlockhashCache {
  /** The warm blockhash, or null when none is fresh enough. Never does I/O. */
  current(): CachedBlockhash | null;
  /** Fetches once now (start-up); failures leave the cache empty and are retried on the timer. */
  refresh(): Promise<void>;
  close(): void;
}

/** Starts the refresh timer (unref'd: it never keeps the process alive). */
export function createBlockhashCache(config: BlockhashCacheConfig): BlockhashCache {
  const now = config.now ?? Date.now;
  const maxAgeMs = config.maxAgeMs ?? BLOCKHASH_MAX_AGE_MS;
  const abort = new AbortController();
  let value: CachedBlockhash | null = null;
  let inFlight: Promise<void> | null = null;

  function refresh(): Promise<void> {
    inFlight ??= config.rpc
      .getLatestBlockhash(abort.signal)
      .then((b) => {
        value = { ...b, fetchedAtMs: now() };
      })
      // A failed refresh keeps the previous value until it ages out; the next tick retries.
      .catch(() => undefined)
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  }

  const timer = setInterval(() => void refresh(), config.refreshMs ?? BLOCKHASH_REFRESH_MS);
  timer.unref();
  return {
    current() {
      return value !== null && now() - value.fetchedAtMs <= maxAgeMs ? value : null;
    },
    refresh,
    close() {
      clearInterval(timer);
      abort.abort();
    },
  };
}

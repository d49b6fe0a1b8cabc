/**
 * In-memory answers by payment-identifier id, with the fingerprint of the payment that produced
 * them. In-flight answers are shared (a retry racing the first request waits for its answer);
 * only answers worth repeating (a paid 200) are kept once settled. Bounded by entry count and age.
 */

/** How long a paid answer can be fetched again with the same id and payload. */
export const IDEMPOTENCY_TTL_MS = 10 * 60_000;
/** Most ids remembered at once; the oldest go first. */
export const IDEMPOTENCY_MAX_ENTRIES = 10_000;

export type IdempotencyLookup<T> = { readonly kind: 'miss' } | { readonly kind: 'hit'; readonly value: Promise<T> } | { readonly kind: 'conflict' };

export interface IdempotencyCache<T> {
  lookup(id: string, fingerprint: string): IdempotencyLookup<T>;
  /** Holds `value` while it is pending; keeps it afterwards only if `keep(result)`. */
  remember(id: string, fingerprint: string, value: Promise<T>, keep: (result: T) => boolean): void;
}

interface Entry<T> {
  readonly fingerprint: string;
  readonly value: Promise<T>;
  readonly expiresAt: number;
}

/** Creates the cache (a Map in insertion order doubles as the eviction queue). */
export function createIdempotencyCache<T>(config: { readonly ttlMs: number; readonly maxEntries?: number; readonly now?: () => number }): IdempotencyCache<T> {
  const now = config.now ?? Date.now;
  const maxEntries = config.maxEntries ?? IDEMPOTENCY_MAX_ENTRIES;
  const entries = new Map<string, Entry<T>>();

  function live(id: string): Entry<T> | undefined {
    const e = entries.get(id);
    if (e && e.expiresAt <= now()) {
      entries.delete(id);
      return undefined;
    }
    return e;
  }

  return {
    lookup(id, fingerprint) {
      const e = live(id);
      if (!e) return { kind: 'miss' };
      return e.fingerprint === fingerprint ? { kind: 'hit', value: e.value } : { kind: 'conflict' };
    },
    remember(id, fingerprint, value, keep) {
      const entry = { fingerprint, value, expiresAt: now() + config.ttlMs };
      entries.set(id, entry);
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      value.then(
        (result) => {
          if (!keep(result) && entries.get(id) === entry) entries.delete(id);
        },
        () => {
          if (entries.get(id) === entry) entries.delete(id);
        },
      );
    },
  };
}

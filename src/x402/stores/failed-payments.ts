/**
 * Payments refused by their verification a moment ago, by replay key: the same payment sent again
 * gets the same refusal from memory, with no signature check and no chain round trip (a repeated
 * unfunded payment would otherwise cost a simulation each time). Only the identical payload is
 * answered so (a different payload under the same key is verified afresh), and only for a short
 * while, so a payer who funds the account can soon send the same payment again. Bounded: at most
 * `maxEntries`, the oldest dropped first.
 */

/** How long a refused payment is remembered, ms. */
export const FAILED_PAYMENT_TTL_MS = 30_000;
/** Refused payments remembered at most: a few hundred bytes each. */
export const FAILED_PAYMENT_MAX_ENTRIES = 10_000;

export interface FailedPaymentsConfig {
  readonly ttlMs?: number;
  readonly maxEntries?: number;
  /** Milliseconds; injected by tests. */
  readonly now?: () => number;
}

/** Why a payment was refused: the 402's reason and its message. */
export interface Refusal {
  readonly reason: string;
  readonly message?: string;
}

export interface FailedPayments {
  remember(key: string, payloadSha256: string, refusal: Refusal): void;
  /** The refusal of this key, when its payload was the one refused and not long ago. */
  recall(key: string, payloadSha256: () => string): Refusal | null;
  size(): number;
}

interface Entry {
  readonly sha: string;
  readonly refusal: Refusal;
  readonly untilMs: number;
}

/** Creates the memory. */
export function createFailedPayments(config: FailedPaymentsConfig = {}): FailedPayments {
  const ttlMs = config.ttlMs ?? FAILED_PAYMENT_TTL_MS;
  const maxEntries = config.maxEntries ?? FAILED_PAYMENT_MAX_ENTRIES;
  const now = config.now ?? (() => performance.now());
  // Insertion order is age order: entries are never refreshed, only replaced.
  const entries = new Map<string, Entry>();
  return {
    remember(key, payloadSha256, refusal) {
      entries.delete(key);
      entries.set(key, { sha: payloadSha256, refusal, untilMs: now() + ttlMs });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
    recall(key, payloadSha256) {
      const entry = entries.get(key);
      if (!entry) return null;
      if (entry.untilMs <= now()) {
        entries.delete(key);
        return null;
      }
      return entry.sha === payloadSha256() ? entry.refusal : null;
    },
    size: () => entries.size,
  };
}

/**
 * Watches for the transactions the service sends, on the Geyser stream it already reads: a
 * signature registered before its transaction is sent is matched against every confirmed
 * transaction the stream delivers, so a settlement learns its confirmation without polling the
 * RPC. What a watch cannot say (the stream is down or stale, an update was missed, `finalized`)
 * stays the RPC's to answer: the waiter (x402/exact-svm/svm-confirm.ts) asks `live()` and polls accordingly.
 */
import { decodeBase58 } from '../solana/base58.ts';
import { keyId } from './geyser-tx-parse.ts';
import type { GeyserHandlers } from './geyser-update-router.ts';

/** Entries beyond this are not watched (their settlements poll): memory stays bounded whatever the load. */
export const SIGNATURE_WATCH_MAX_ENTRIES = 10_000;

/** The confirmed transaction the stream delivered under a watched signature. */
export interface Sighting {
  readonly slot: number;
  /** The transaction's status meta carried an error: it failed on chain (fees paid, nothing else). */
  readonly failed: boolean;
}

/** One registered signature; `release()` frees it (idempotent) and must follow every `watch()`. */
export interface WatchedSignature {
  /** The confirmed transaction, once the stream delivered it. */
  sighting(): Sighting | null;
  /** The newest slot the stream reported `finalized` (null before any). */
  finalizedSlot(): number | null;
  /** Resolves at the next news for this signature (its sighting, a finalized slot at or past it), or after `ms`. */
  changed(ms: number): Promise<void>;
  release(): void;
}

/** The stream handlers that feed a watch. */
export type SignatureFeed = Pick<GeyserHandlers, 'onSlot' | 'onTransaction'>;

export interface SignatureWatchConfig {
  /** Whether the stream feeding the watch is live now; a stale or absent stream says nothing. */
  readonly isLive: () => boolean;
  readonly maxEntries?: number;
}

/** The registered signatures, fed by the stream. */
export interface SignatureWatch {
  readonly feed: SignatureFeed;
  /** Whether a confirmation can be expected from the stream now. */
  live(): boolean;
  /** Registers `signature` (base58); null when it is malformed or the watch is full (then poll). */
  watch(signature: string): WatchedSignature | null;
  /** Signatures registered and not yet released. */
  readonly size: number;
}

interface Entry {
  sighting: Sighting | null;
  wake: (() => void) | null;
}

/** Creates an empty watch; nothing is kept for a signature nobody registered. */
export function createSignatureWatch(config: SignatureWatchConfig): SignatureWatch {
  const maxEntries = config.maxEntries ?? SIGNATURE_WATCH_MAX_ENTRIES;
  const entries = new Map<string, Entry>();
  let finalized: number | null = null;

  const feed: SignatureFeed = {
    onSlot(slot, status) {
      if (status !== 'finalized' || (finalized !== null && slot <= finalized)) return;
      finalized = slot;
      for (const entry of entries.values()) if (entry.sighting && !entry.sighting.failed && entry.sighting.slot <= slot) entry.wake?.();
    },
    onTransaction(slot, tx) {
      // Most of the time nothing is watched: the stream's transactions then cost no key.
      if (entries.size === 0 || tx.signature === null) return;
      const entry = entries.get(keyId(tx.signature));
      // The first sighting stands: a resubscription's replay delivers the same transaction again.
      if (entry === undefined || entry.sighting !== null) return;
      entry.sighting = { slot, failed: tx.failed };
      entry.wake?.();
    },
  };

  function watch(signature: string): WatchedSignature | null {
    const bytes = decodeBase58(signature);
    if (bytes?.length !== 64 || entries.size >= maxEntries) return null;
    const key = keyId(bytes);
    // Two settlements of one signature cannot both be sent (the replay guard sees to it); the later one waits by polling.
    if (entries.has(key)) return null;
    const entry: Entry = { sighting: null, wake: null };
    entries.set(key, entry);
    return {
      sighting: () => entry.sighting,
      finalizedSlot: () => finalized,
      changed: (ms) =>
        new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            entry.wake = null;
            resolve();
          };
          const timer = setTimeout(done, ms);
          entry.wake?.();
          entry.wake = done;
        }),
      release() {
        if (entries.get(key) === entry) entries.delete(key);
        entry.wake?.();
      },
    };
  }

  return {
    feed,
    live: () => config.isLive(),
    watch,
    get size() {
      return entries.size;
    },
  };
}

/**
 * The live ledger feed at `/ledger/live` (docs/storefront.md#the-live-ledger-feed): a WebSocket
 * subscriber first gets the current checkpoint and the newest entries, then every entry as it
 * becomes durable and the checkpoint after each batch. Entries are exactly what `/ledger` serves.
 * With no subscriber an append costs one set lookup and one counter read, nothing more.
 */
import type { LedgerEntry } from '../../ledger/ledger-entry.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import type { LedgerHead } from '../../ledger/ledger-reader.ts';
import type { Feed } from '../server/feed.ts';
import type { HttpServer } from '../server/server.ts';

/** Where the feed is served. */
export const LEDGER_FEED_PATH = '/ledger/live';
/** Entries a new subscriber gets before live ones. */
export const LEDGER_FEED_BACKLOG = 20;

/** `{"type":"entry","entry":{...}}`. */
export const entryMessage = (entry: LedgerEntry): string => `{"type":"entry","entry":${JSON.stringify(entry)}}`;

/** `{"type":"checkpoint","treeSize":N,"rootSha256":"...","chainHead":"..."}`: the durable head (root under the simple rule, as /trust/proof uses). */
export const checkpointMessage = (head: LedgerHead): string =>
  JSON.stringify({ type: 'checkpoint', treeSize: head.treeSize, rootSha256: head.merkleRoot, chainHead: head.chainHead });

export interface LedgerFeed {
  /** The feed route for the HTTP server's `feeds`. */
  readonly feed: Feed;
  /** Starts publishing durable appends through `server`. */
  attach(server: Pick<HttpServer, 'publish' | 'subscribers'>): void;
  /** Stops listening to the ledger. */
  close(): void;
}

/** The feed over `ledger`; publishing starts at `attach`. */
export function createLedgerFeed(ledger: Pick<Ledger, 'head' | 'recent' | 'onAppend'>): LedgerFeed {
  let stop: (() => void) | null = null;
  return {
    feed: {
      path: LEDGER_FEED_PATH,
      onOpen: () => [checkpointMessage(ledger.head()), ...ledger.recent(LEDGER_FEED_BACKLOG).map(entryMessage)],
    },
    attach(server) {
      stop?.();
      let checkpointQueued = false;
      const sendCheckpoint = () => {
        checkpointQueued = false;
        if (server.subscribers(LEDGER_FEED_PATH) > 0) server.publish(LEDGER_FEED_PATH, checkpointMessage(ledger.head()));
      };
      stop = ledger.onAppend((entry) => {
        if (server.subscribers(LEDGER_FEED_PATH) === 0) return;
        server.publish(LEDGER_FEED_PATH, entryMessage(entry));
        // One checkpoint per group commit, after its last entry: the root is folded once a batch.
        if (!checkpointQueued) {
          checkpointQueued = true;
          setImmediate(sendCheckpoint);
        }
      });
    },
    close() {
      stop?.();
      stop = null;
    },
  };
}

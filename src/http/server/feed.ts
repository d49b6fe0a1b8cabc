/**
 * One-way WebSocket feeds as the front end serves them (the sockets themselves live in
 * feed-sockets.ts; no uWS here): what a feed is, the limits every feed socket runs under, and the
 * answer a plain GET of a feed's path gets.
 */
import { errorReply } from '../../errors.ts';
import type { Route } from './route.ts';

/** Largest message a feed subscriber may send (feeds are one-way; anything larger closes the socket), bytes. */
export const FEED_MAX_PAYLOAD_BYTES = 1024;
/** A feed socket silent this long is closed; automatic pings keep live ones busy, seconds. */
export const FEED_IDLE_TIMEOUT_SECONDS = 120;
/** Unsent bytes a feed subscriber may fall behind by before it is dropped (it reconnects and catches up). */
export const FEED_MAX_BACKPRESSURE_BYTES = 256 * 1024;
/** Feed sockets open at once, over all feeds; further upgrades answer 503. */
export const FEED_MAX_SOCKETS = 1000;
/** Feed sockets one client may hold open at once; further upgrades of that client answer 429. */
export const FEED_SOCKETS_PER_CLIENT = 20;

/**
 * A WebSocket feed at `path`: a subscriber first gets `onOpen()`'s messages (the current state),
 * then everything published to the feed. Its topic is its path.
 */
export interface Feed {
  readonly path: string;
  readonly onOpen: () => readonly string[];
}

/** The plain-GET answer of each feed's path: it speaks WebSocket only. */
export function feedRoutes(feeds: readonly Feed[]): Route[] {
  return feeds.map((f) => ({
    method: 'GET',
    path: f.path,
    handler: () =>
      errorReply(
        { error: 'upgrade_required', message: `${f.path} is a WebSocket feed: connect with a WebSocket client (Upgrade: websocket)` },
        { Upgrade: 'websocket' },
      ),
  }));
}

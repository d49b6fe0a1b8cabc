/**
 * The feeds' WebSocket routes on the uWS app (types only from uWS: server.ts loads it): a bounded
 * number of sockets, small inbound messages, idle timeout with automatic pings, and a
 * backpressure limit past which a slow subscriber is closed (it reconnects and gets the current
 * state again) instead of buffering without end.
 */
import type uWS from 'uWebSockets.js';
import { errorReply, type HttpReply } from '../errors.ts';
import { FEED_IDLE_TIMEOUT_SECONDS, FEED_MAX_BACKPRESSURE_BYTES, FEED_MAX_PAYLOAD_BYTES, type Feed } from './feed.ts';

export interface FeedSocketsConfig {
  /** Feed sockets open at once, over all feeds. */
  readonly maxSockets: number;
  /** True while the server drains: upgrades are refused. */
  readonly refuse: () => boolean;
  /** Writes a refusal and closes the connection. */
  readonly write: (res: uWS.HttpResponse, reply: HttpReply, closeConnection: boolean) => void;
}

/** Registers every feed's route; returns what closes their sockets (at shutdown). */
export function openFeeds(app: uWS.TemplatedApp, feeds: readonly Feed[], config: FeedSocketsConfig): () => void {
  const { maxSockets, refuse, write } = config;
  const sockets = new Set<uWS.WebSocket<{ readonly feed: Feed }>>();
  for (const feed of feeds) {
    app.ws<{ readonly feed: Feed }>(feed.path, {
      maxPayloadLength: FEED_MAX_PAYLOAD_BYTES,
      idleTimeout: FEED_IDLE_TIMEOUT_SECONDS,
      sendPingsAutomatically: true,
      maxBackpressure: FEED_MAX_BACKPRESSURE_BYTES,
      closeOnBackpressureLimit: 1,
      upgrade(res, req, context) {
        const key = req.getHeader('sec-websocket-key');
        const protocol = req.getHeader('sec-websocket-protocol');
        const extensions = req.getHeader('sec-websocket-extensions');
        if (refuse()) return write(res, errorReply({ error: 'shutting_down', message: 'the service is shutting down' }, { 'Retry-After': '5' }), true);
        if (sockets.size >= maxSockets) {
          const message = `the feeds are full (${maxSockets} sockets open); retry later, or poll the HTTP endpoint instead`;
          return write(res, errorReply({ error: 'feed_full', message }, { 'Retry-After': '30' }), true);
        }
        res.cork(() => res.upgrade({ feed }, key, protocol, extensions, context));
      },
      open(ws) {
        sockets.add(ws);
        try {
          for (const m of feed.onOpen()) ws.send(m);
          ws.subscribe(feed.path);
        } catch {
          ws.end(1011, 'feed unavailable');
        }
      },
      close: (ws) => void sockets.delete(ws),
    });
  }
  return () => {
    for (const ws of [...sockets]) ws.end(1001, 'server shutting down');
  };
}

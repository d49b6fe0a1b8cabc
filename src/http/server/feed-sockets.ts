/**
 * The feeds' WebSocket routes on the uWS app (types only from uWS: server.ts loads it): a bounded
 * number of sockets, small inbound messages, idle timeout with automatic pings, and a
 * backpressure limit past which a slow subscriber is closed (it reconnects and gets the current
 * state again) instead of buffering without end.
 *
 * An upgrade is a free request like any other: it takes a token of its client's free rate limit
 * (a payment header on it buys nothing: a feed is never paid for). And one client (keyed like the
 * limit: an IPv4 address, an IPv6 /64) holds at most `perClient` sockets, so no single client can
 * take the whole global cap and shut every other client out of the feed.
 *
 * What a socket is sent is spent from its client's bytes like any free answer: the current state
 * it gets on opening at once, and what the feed publishes once a second for each socket open
 * (publishing itself stays one send to every subscriber). A client left owing bytes has its
 * sockets closed (1013, try again later); its upgrades are refused until its bytes are back.
 */
import type uWS from 'uWebSockets.js';
import { errorReply, type HttpReply } from '../../errors.ts';
import { FEED_IDLE_TIMEOUT_SECONDS, FEED_MAX_BACKPRESSURE_BYTES, FEED_MAX_PAYLOAD_BYTES, type Feed } from './feed.ts';
import { admitUpgrade, type UpgradeDoor } from './socket-upgrade.ts';

/** What a refused upgrade is told to wait before retrying, seconds. */
const FEED_RETRY_AFTER_SECONDS = 30;

export interface FeedSocketsConfig extends UpgradeDoor {
  /** Feed sockets open at once, over all feeds. */
  readonly max: number;
  /** Feed sockets one client may hold open at once. */
  readonly perClient: number;
  /** Spends bytes sent to a client (the free limit's byte bound); false once the client owes bytes. */
  readonly sent?: (remoteIp: string, bytes: number) => boolean;
}

/** How often what the feeds published is spent from their subscribers' bytes. */
export const FEED_METER_INTERVAL_MS = 1000;

interface SocketData {
  readonly feed: Feed;
  readonly client: string;
  readonly remoteIp: string;
  /** The feed's published bytes already spent for this socket. */
  spentAt: number;
}

/** The open feeds: what closes their sockets, and where the server tells what it published. */
export interface OpenFeeds {
  /** Closes every feed socket (at shutdown). */
  close(): void;
  /** The server published `bytes` on the feed at `path`. */
  published(path: string, bytes: number): void;
}

const retryLater = { 'Retry-After': String(FEED_RETRY_AFTER_SECONDS) };

/** Why an upgrade of `client` is refused now, or null to upgrade it. */
function refusal(config: FeedSocketsConfig, open: number, clientOpen: number): HttpReply | null {
  if (clientOpen >= config.perClient) {
    const message = `this client holds ${clientOpen} feed sockets, the most one client may hold; close one, or poll the HTTP endpoint instead`;
    return errorReply({ error: 'rate_limited', message, retryAfterSeconds: FEED_RETRY_AFTER_SECONDS }, retryLater);
  }
  if (open >= config.max) {
    const message = `the feeds are full (${config.max} sockets open); retry later, or poll the HTTP endpoint instead`;
    return errorReply({ error: 'feed_full', message }, retryLater);
  }
  return null;
}

/** Registers every feed's route. */
export function openFeeds(app: uWS.TemplatedApp, feeds: readonly Feed[], config: FeedSocketsConfig): OpenFeeds {
  const sockets = new Set<uWS.WebSocket<SocketData>>();
  const perClient = new Map<string, number>();
  // Bytes each feed published since it opened: a socket spends the part since its last spend.
  const published = new Map<string, number>();
  const sent = config.sent;
  const meter = sent ? setInterval(() => spendPublished(sockets, published, sent), FEED_METER_INTERVAL_MS) : null;
  meter?.unref();
  for (const feed of feeds) {
    app.ws<SocketData>(feed.path, {
      maxPayloadLength: FEED_MAX_PAYLOAD_BYTES,
      idleTimeout: FEED_IDLE_TIMEOUT_SECONDS,
      sendPingsAutomatically: true,
      maxBackpressure: FEED_MAX_BACKPRESSURE_BYTES,
      closeOnBackpressureLimit: 1,
      upgrade(res, req, context) {
        const up = admitUpgrade(res, req, config, feed.path, (client) => refusal(config, sockets.size, perClient.get(client) ?? 0));
        if (!up) return;
        const { key, protocol, extensions, client, remoteIp } = up;
        const spentAt = published.get(feed.path) ?? 0;
        res.cork(() => res.upgrade<SocketData>({ feed, client, remoteIp, spentAt }, key, protocol, extensions, context));
      },
      open(ws) {
        sockets.add(ws);
        const { client } = ws.getUserData();
        perClient.set(client, (perClient.get(client) ?? 0) + 1);
        try {
          let bytes = 0;
          for (const m of feed.onOpen()) {
            ws.send(m);
            bytes += m.length;
          }
          ws.subscribe(feed.path);
          sent?.(ws.getUserData().remoteIp, bytes);
        } catch {
          ws.end(1011, 'feed unavailable');
        }
      },
      close(ws) {
        sockets.delete(ws);
        const { client } = ws.getUserData();
        const left = (perClient.get(client) ?? 1) - 1;
        if (left > 0) perClient.set(client, left);
        else perClient.delete(client);
      },
    });
  }
  return {
    close() {
      if (meter) clearInterval(meter);
      for (const ws of [...sockets]) ws.end(1001, 'server shutting down');
    },
    published(path, bytes) {
      if (sent) published.set(path, (published.get(path) ?? 0) + bytes);
    },
  };
}

/** Spends what each socket's feed published since its last spend; a client left owing bytes has its sockets closed. */
function spendPublished(
  sockets: ReadonlySet<uWS.WebSocket<SocketData>>,
  published: ReadonlyMap<string, number>,
  sent: (remoteIp: string, bytes: number) => boolean,
): void {
  const owing: uWS.WebSocket<SocketData>[] = [];
  for (const ws of sockets) {
    const data = ws.getUserData();
    const now = published.get(data.feed.path) ?? 0;
    if (now === data.spentAt) continue;
    const bytes = now - data.spentAt;
    data.spentAt = now;
    if (!sent(data.remoteIp, bytes)) owing.push(ws);
  }
  for (const ws of owing) ws.end(1013, 'this client has used its bytes without a payment; try again later');
}

/**
 * The paid streams' WebSocket routes on the uWS app (types only from uWS: server.ts loads it):
 * `/v1/stream/<topic>` of each catalog stream. Admission is the live feeds' (feed-sockets.ts): an
 * upgrade takes a token of its client's free rate limit, one client holds at most `perClient`
 * stream sockets and the instance `max`, refused with 429/503 before the upgrade. A message is
 * copied out of uWS at once and handed to its session (stream-session.ts); uWS drops what a
 * subscriber cannot take past the backpressure bound and the hub cuts it with a reason.
 */
import type uWS from 'uWebSockets.js';
import type { StreamEntry } from '../../catalog/streams.ts';
import { errorReply, type HttpReply } from '../../errors.ts';
import type { FeedSocketsConfig } from '../server/feed-sockets.ts';
import type { Route } from '../server/route.ts';
import { admitUpgrade } from '../server/socket-upgrade.ts';
import type { StreamHub } from './stream-hub.ts';
import { STREAM_IDLE_TIMEOUT_SECONDS, STREAM_MAX_BACKPRESSURE_BYTES, STREAM_MAX_FRAME_BYTES } from './stream-protocol.ts';
import type { StreamSession } from './stream-session.ts';

/** What a refused upgrade is told to wait before retrying, seconds. */
const STREAM_RETRY_AFTER_SECONDS = 30;

export interface StreamSocketsConfig extends Omit<FeedSocketsConfig, 'max' | 'perClient'> {
  readonly streams: readonly StreamEntry[];
  readonly hub: StreamHub;
  /** Stream sockets open at once, over all streams, and per client. */
  readonly max: number;
  readonly perClient: number;
  /** The service's base URL (`http(s)://…`): a stream's resource is its `ws(s)://` URL. */
  readonly baseUrl: () => string;
  /** Told when a paid socket subscribes to a stream (a source that polls wakes then). */
  readonly onSubscribe?: (stream: StreamEntry) => void;
}

interface SocketData {
  readonly stream: StreamEntry;
  readonly client: string;
  session: StreamSession | null;
}

const retryLater = { 'Retry-After': String(STREAM_RETRY_AFTER_SECONDS) };

function refusal(config: StreamSocketsConfig, open: number, clientOpen: number): HttpReply | null {
  if (clientOpen >= config.perClient) {
    const message = `this client holds ${clientOpen} stream sockets, the most one client may hold; close one first`;
    return errorReply({ error: 'rate_limited', message, retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS }, retryLater);
  }
  if (open >= config.max) return errorReply({ error: 'streams_full', message: `the streams are full (${config.max} sockets open); retry later` }, retryLater);
  return null;
}

/** The plain-GET answer of each stream's path: it speaks WebSocket only. */
export function streamRoutes(streams: readonly StreamEntry[]): Route[] {
  return streams.map((s) => ({
    method: 'GET',
    path: s.path,
    handler: () =>
      errorReply(
        { error: 'upgrade_required', message: `${s.path} is a paid WebSocket stream: connect with a WebSocket client (Upgrade: websocket)` },
        { Upgrade: 'websocket' },
      ),
  }));
}

const socketOf = (ws: uWS.WebSocket<SocketData>, stream: StreamEntry, subscribed?: (stream: StreamEntry) => void) => ({
  send: (text: string) => void ws.send(text, false),
  end: (code: number, reason: string) => ws.end(code, reason),
  subscribe: () => {
    ws.subscribe(stream.path);
    subscribed?.(stream);
  },
  unsubscribe: () => void ws.unsubscribe(stream.path),
  buffered: () => ws.getBufferedAmount(),
});

/** Registers every stream's route; returns what closes their sockets (at shutdown). */
export function openStreams(app: uWS.TemplatedApp, config: StreamSocketsConfig): () => void {
  const { hub } = config;
  const perClient = new Map<string, number>();
  let open = 0;
  for (const stream of config.streams) {
    app.ws<SocketData>(stream.path, {
      maxPayloadLength: STREAM_MAX_FRAME_BYTES,
      idleTimeout: STREAM_IDLE_TIMEOUT_SECONDS,
      sendPingsAutomatically: true,
      maxBackpressure: STREAM_MAX_BACKPRESSURE_BYTES,
      // The hub cuts a slow subscriber with its reason; uWS meanwhile drops what it cannot take.
      closeOnBackpressureLimit: 0,
      upgrade(res, req, context) {
        // A stream is paid in its messages, never by an upgrade's header (socket-upgrade.ts).
        const up = admitUpgrade(res, req, config, stream.path, (client) => refusal(config, open, perClient.get(client) ?? 0));
        if (!up) return;
        const { key, protocol, extensions, client } = up;
        res.cork(() => res.upgrade<SocketData>({ stream, client, session: null }, key, protocol, extensions, context));
      },
      open(ws) {
        open++;
        const data = ws.getUserData();
        perClient.set(data.client, (perClient.get(data.client) ?? 0) + 1);
        const resourceUrl = `${config.baseUrl().replace(/^http/, 'ws')}${stream.path}`;
        data.session = hub.open({ stream, resourceUrl, client: data.client }, socketOf(ws, stream, config.onSubscribe));
      },
      message(ws, message, isBinary) {
        const session = ws.getUserData().session;
        if (!session) return;
        if (isBinary) return session.cut('bad_message');
        session.message(Buffer.from(message).toString('utf8'));
      },
      close(ws) {
        open--;
        const data = ws.getUserData();
        data.session?.gone();
        const left = (perClient.get(data.client) ?? 1) - 1;
        if (left > 0) perClient.set(data.client, left);
        else perClient.delete(data.client);
      },
    });
  }
  return () => hub.close();
}

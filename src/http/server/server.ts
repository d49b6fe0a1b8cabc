/**
 * The HTTP front end on uWebSockets.js (only src/http/ imports it: this server, the request copy,
 * the stream writer and the WebSocket feeds). It knows nothing of payments or intelligence; it
 * copies each request into a plain `HttpRequestData` before any await, enforces size limits,
 * answers CORS and 404/405 itself, runs the matching handler with an AbortSignal that fires when
 * the client goes away, and writes the reply corked, never after an abort (a streamed reply chunk
 * by chunk, see stream-writer.ts). A handler that answers synchronously is answered in the same
 * callback (request-state.ts).
 */
import { performance } from 'node:perf_hooks';
import uWS from 'uWebSockets.js';
import { errorReply, InUseError, replyForError, type HttpReply } from '../../errors.ts';
import { abortRequest, CopiedRequest, createRequestState, isPromiseLike, type RequestState, signalOf } from './request-state.ts';
import type { AnyReply, HttpHandler, HttpRequestData, Route } from './route.ts';
import { clientAddress, trustedProxySet } from '../admission/client-address.ts';
import { FEED_MAX_SOCKETS, FEED_SOCKETS_PER_CLIENT, type Feed, feedRoutes } from './feed.ts';
import { openFeeds } from './feed-sockets.ts';
import { createRouteTable, PREFLIGHT_HEADERS } from './route-table.ts';
import { listenFailure } from './listen-failure.ts';
import { createPeerAddressText } from '../admission/peer-address.ts';
import { copiedHeaderBytes, copyHeaders, readBody } from './request-copy.ts';
import { writeStream } from './stream-writer.ts';
import { repliedBytes, write, writeHead, writeHeadOnly } from './reply-writer.ts';
import { openStreams, type StreamSocketsConfig, streamRoutes } from '../streams/stream-sockets.ts';
import type { ByteMeter } from './wire-bytes.ts';

/** Longest request target (path plus query) accepted, bytes. */
export const MAX_URL_BYTES = 8192;
/** Largest total of header names and values accepted, bytes. */
export const MAX_HEADER_BYTES = 16_384;
/** Largest request body accepted (only POST routes read one), bytes. */
export const MAX_BODY_BYTES = 65_536;
/** How long close() waits for in-flight requests before aborting them. */
export const DRAIN_TIMEOUT_MS = 10_000;
/** How long aborted requests get to unwind before close() resolves without them. */
export const ABORT_GRACE_MS = 1_000;

export interface HttpServerConfig {
  readonly routes: readonly Route<AnyReply>[];
  /** Routes whose path starts with a prefix (e.g. `/preview/`), tried after exact paths. */
  readonly prefixRoutes?: readonly Route<AnyReply>[];
  /** How long close() lets in-flight requests run before aborting them, ms (default DRAIN_TIMEOUT_MS). */
  readonly drainTimeoutMs?: number;
  /** Peers whose X-Forwarded-For names the client (client-address.ts). */
  readonly trustedProxies?: readonly string[];
  /** Asked before routing, with the request copied: a reply refuses it (a rate limit's 429), null lets it through. Runs on every request. */
  readonly admit?: (req: Pick<HttpRequestData, 'method' | 'remoteIp' | 'headers' | 'path'>) => HttpReply | null;
  /** Called once per answered request with its status and duration. */
  readonly onResponse?: (status: number, durationMs: number) => void;
  /** The free limit's byte bound: which answers count (`counts`, asked first: one that does not costs no reckoning) and
   * what each weighed on the wire, spent from its client's bytes (`sent`); feed sockets spend through it too. */
  readonly meter?: ByteMeter;
  /** One-way WebSocket feeds; a plain GET of a feed's path answers 426. */
  readonly feeds?: readonly Feed[];
  /** Feed sockets open at once, over all clients (default FEED_MAX_SOCKETS) and per client (default FEED_SOCKETS_PER_CLIENT). */
  readonly feedSockets?: { readonly max: number; readonly perClient: number };
  /** The paid streams (stream-sockets.ts); a plain GET of a stream's path answers 426. */
  readonly streams?: Pick<StreamSocketsConfig, 'streams' | 'hub' | 'max' | 'perClient' | 'baseUrl' | 'onSubscribe'>;
}

export interface HttpServer {
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting, lets in-flight requests finish for up to the drain timeout, aborts the rest, then resolves. */
  close(): Promise<void>;
  inFlight(): number;
  /** Sends `message` to every subscriber of the feed at `path` (slow ones are dropped, never waited for). */
  publish(path: string, message: string): void;
  /** Subscribers of the feed at `path` now. */
  subscribers(path: string): number;
}

/**
 * uWS writes `uWebSockets: 20` into every answer and upgrade unless its loop is silent: the
 * library and its major version, told to every client for nothing. `_cfg('silent')` is the
 * binding's one switch for it (absent from its typings); it holds for the whole process.
 */
(uWS as unknown as { readonly _cfg: (key: string) => void })._cfg('silent');

/**
 * uWS's listen with options. Its typings omit the host form the binding takes, and declare the
 * option as an enum the binding does not export (it exports the constant itself).
 */
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: uWS.us_listen_socket | false) => void) => void;
const EXCLUSIVE_PORT = (uWS as unknown as { readonly LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT;
const listenExclusive = (app: uWS.TemplatedApp, host: string, port: number, cb: (socket: uWS.us_listen_socket | false) => void) =>
  (app.listen as unknown as ListenWithOptions).call(app, host, port, EXCLUSIVE_PORT, cb);

/** Creates the uWS front end over the given routes. */
export function createHttpServer(config: HttpServerConfig): HttpServer {
  const lookup = createRouteTable(
    [...config.routes, ...feedRoutes(config.feeds ?? []), ...streamRoutes(config.streams?.streams ?? [])],
    config.prefixRoutes ?? [],
  );
  const trusted = trustedProxySet(config.trustedProxies ?? []);
  const peerText = createPeerAddressText();
  const app = uWS.App();
  let listenSocket: uWS.us_listen_socket | null = null;
  // Requests in flight (streams until their last byte): close() waits for them and aborts those
  // the drain deadline leaves behind. One answered in its own callback is never in flight.
  const running = new Set<RequestState>();
  let draining = false;
  let drained: (() => void) | null = null;
  const limits = config.feedSockets ?? { max: FEED_MAX_SOCKETS, perClient: FEED_SOCKETS_PER_CLIENT };
  const clientOf = (res: uWS.HttpResponse, forwardedFor: string | undefined) => clientAddress(peerText(res.getRemoteAddress()), forwardedFor, trusted);
  const sent = config.meter ? config.meter.sent.bind(config.meter) : undefined;
  const feeds = openFeeds(app, config.feeds ?? [], { ...limits, refuse: () => draining, write, clientOf, admit: config.admit, ...(sent ? { sent } : {}) });
  const closeStreams = config.streams ? openStreams(app, { ...config.streams, refuse: () => draining, write, clientOf, admit: config.admit }) : () => {};

  const leave = (state: RequestState) => {
    running.delete(state);
    if (draining && running.size === 0) drained?.();
  };
  // uWS wants onAborted before the callback returns unanswered; the signal follows it. A request
  // whose body was still arriving has no handler to wait for: it leaves the in-flight set at once.
  const track = (res: uWS.HttpResponse, state: RequestState) => {
    if (state.tracked) return;
    state.tracked = true;
    running.add(state);
    res.onAborted(() => {
      state.clientGone = true;
      abortRequest(state);
      if (state.readingBody) leave(state);
    });
  };
  const meter = config.meter;
  /** Spends what a written answer weighed from its client's bytes, when it counts (a stream: with the content it streamed). */
  const metered = (state: RequestState, reply: AnyReply, streamed = 0) => {
    if (meter?.counts(state.path, reply.status)) meter.sent(state.client, repliedBytes(reply, state.head, streamed));
  };
  const done = (state: RequestState, status: number) => {
    config.onResponse?.(status, performance.now() - state.started);
    if (state.tracked) leave(state);
  };
  /** `inCallback`: in the uWS callback that received the request (its socket corked by uWS), not after an await. */
  const finish = (res: uWS.HttpResponse, state: RequestState, reply: AnyReply, inCallback = true) => {
    // A stream counts as in flight until its last byte: close() lets it finish like any request.
    if ('stream' in reply) {
      if (state.head) {
        // No content for HEAD: the head alone, and the producer is told nobody reads it.
        if (!state.clientGone) {
          writeHeadOnly(res, reply);
          metered(state, reply);
        }
        reply.stream.cancel().catch(() => undefined);
        return done(state, reply.status);
      }
      track(res, state);
      return void writeStream(
        res,
        reply,
        () => writeHead(res, reply),
        signalOf(state),
        () => draining,
      ).then((sent) => {
        metered(state, reply, sent);
        done(state, reply.status);
      });
    }
    if (!state.clientGone) {
      write(res, reply, draining, state.head, inCallback);
      metered(state, reply);
    }
    done(state, reply.status);
  };
  // A synchronous answer is written at once, in this callback; only a promise goes asynchronous.
  const dispatch = (res: uWS.HttpResponse, state: RequestState, handler: HttpHandler<AnyReply>, data: HttpRequestData, inCallback = true) => {
    let reply: AnyReply | PromiseLike<AnyReply>;
    try {
      reply = handler(data);
    } catch (err) {
      reply = replyForError(err);
    }
    if (!isPromiseLike(reply)) return finish(res, state, reply, inCallback);
    track(res, state);
    Promise.resolve(reply)
      .catch(replyForError)
      .then((r) => finish(res, state, r, false));
  };

  app.any('/*', (res, req) => {
    const asSent = req.getCaseSensitiveMethod(); // a GET in capitals (nearly all) keeps the constant: no upper-cased copy
    const method = asSent === 'GET' ? 'GET' : asSent.toUpperCase();
    const path = req.getUrl();
    const query = req.getQuery() ?? '';
    const headers = copyHeaders(req);
    const remoteIp = clientAddress(peerText(res.getRemoteAddress()), headers['x-forwarded-for'], trusted);
    const state = createRequestState(method === 'HEAD', path, remoteIp);

    if (path.length + query.length > MAX_URL_BYTES)
      return finish(res, state, errorReply({ error: 'uri_too_long', message: `request target exceeds ${MAX_URL_BYTES} bytes` }));
    if (copiedHeaderBytes() > MAX_HEADER_BYTES)
      return finish(res, state, errorReply({ error: 'headers_too_large', message: `request headers exceed ${MAX_HEADER_BYTES} bytes` }));
    if (draining) return finish(res, state, errorReply({ error: 'shutting_down', message: 'the service is shutting down' }, { 'Retry-After': '5' }));
    if (method === 'OPTIONS') return finish(res, state, { status: 204, headers: PREFLIGHT_HEADERS, body: '' });
    const refused = config.admit?.({ method, remoteIp, headers, path });
    if (refused) return finish(res, state, refused);

    const found = lookup(method === 'HEAD' ? 'GET' : method, path);
    if (typeof found !== 'function') return finish(res, state, found);
    if (method !== 'POST') return dispatch(res, state, found, new CopiedRequest(method, path, query, headers, remoteIp, null, state));
    track(res, state);
    state.readingBody = true;
    readBody(res, MAX_BODY_BYTES, (body) => {
      state.readingBody = false;
      if (body === null) return finish(res, state, errorReply({ error: 'payload_too_large', message: `request body exceeds ${MAX_BODY_BYTES} bytes` }), false);
      // A body's last chunk: corked here, as after an await (a body callback is not the request's).
      dispatch(res, state, found, new CopiedRequest(method, path, query, headers, remoteIp, body, state), false);
    });
  });

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        // Exclusive: by default uWS shares a port (SO_REUSEPORT) and a second service would split the traffic.
        listenExclusive(app, host, port, (socket) => {
          if (!socket) return void listenFailure(host, port).then((why) => reject(new InUseError(why)));
          listenSocket = socket;
          resolve(uWS.us_socket_local_port(socket as unknown as uWS.us_socket));
        });
      });
    },
    close() {
      draining = true;
      if (listenSocket) uWS.us_listen_socket_close(listenSocket);
      listenSocket = null;
      // Feed sockets never finish on their own: close them, or they would outlive the service.
      feeds.close();
      closeStreams();
      if (running.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        // Past the deadline the stragglers' signals fire (their upstream calls are abandoned) and
        // they get ABORT_GRACE_MS to unwind; a handler that ignores its signal is left behind.
        let timer = setTimeout(() => {
          for (const state of running) abortRequest(state, new Error('the drain deadline passed'));
          timer = setTimeout(resolve, ABORT_GRACE_MS);
        }, config.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
        drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
    inFlight: () => running.size,
    publish(path, message) {
      app.publish(path, message, false, false);
      feeds.published(path, message.length);
    },
    subscribers: (path) => app.numSubscribers(path),
  };
}

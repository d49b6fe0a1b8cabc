/**
 * The HTTP front end on uWebSockets.js: the only module that imports it. It knows nothing of
 * payments or intelligence; it copies each request into a plain `HttpRequestData` before any
 * await, enforces size limits, answers CORS and 404/405 itself, runs the matching handler with an
 * AbortSignal that fires when the client goes away, and writes the reply corked, never after an
 * abort (a streamed reply chunk by chunk, see stream-writer.ts).
 */
import uWS from 'uWebSockets.js';
import { errorReply, replyForError, type HttpReply } from '../errors.ts';
import type { AnyReply, HttpRequestData, Route } from './route.ts';
import { clientAddress, trustedProxySet } from './client-address.ts';
import { FEED_IDLE_TIMEOUT_SECONDS, FEED_MAX_BACKPRESSURE_BYTES, FEED_MAX_PAYLOAD_BYTES, FEED_MAX_SOCKETS, type Feed, feedRoutes } from './feed.ts';
import { CORS_HEADERS, createRouteTable, PREFLIGHT_HEADERS, STATUS_TEXT } from './route-table.ts';
import { writeStream } from './stream-writer.ts';

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
  /**
   * Asked before routing, with the request copied: a reply refuses it (a rate limit's 429), null
   * lets it through. Synchronous and cheap: it runs on every request.
   */
  readonly admit?: (req: Pick<HttpRequestData, 'remoteIp' | 'headers' | 'path'>) => HttpReply | null;
  /** Called once per answered request with its status and duration. */
  readonly onResponse?: (status: number, durationMs: number) => void;
  /** One-way WebSocket feeds; a plain GET of a feed's path answers 426. */
  readonly feeds?: readonly Feed[];
  /** Feed sockets open at once (default FEED_MAX_SOCKETS). */
  readonly maxFeedSockets?: number;
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

function writeHead(res: uWS.HttpResponse, reply: AnyReply): void {
  res.writeStatus(`${reply.status} ${STATUS_TEXT[reply.status] ?? 'Status'}`);
  for (const [k, v] of Object.entries(CORS_HEADERS)) res.writeHeader(k, v);
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
}

function write(res: uWS.HttpResponse, reply: HttpReply, closeConnection: boolean): void {
  res.cork(() => {
    writeHead(res, reply);
    // A 304 has no body, and no Content-Length of an empty one either (it would describe the 200).
    // Called without arguments: given any, the binding writes a length (a bogus one for undefined).
    if (reply.status === 304) res.endWithoutBody();
    else res.end(reply.body, closeConnection);
  });
}

function copyHeaders(req: uWS.HttpRequest): { headers: Record<string, string>; bytes: number } {
  const headers: Record<string, string> = {};
  let bytes = 0;
  req.forEach((k, v) => {
    bytes += k.length + v.length;
    // Repeated headers are joined as RFC 9110 allows for list-valued fields.
    headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
  });
  return { headers, bytes };
}

function readBody(res: uWS.HttpResponse, onDone: (body: Buffer | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  res.onData((chunk, isLast) => {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) {
      if (size - chunk.byteLength <= MAX_BODY_BYTES) onDone(null);
      return;
    }
    // uWS reuses the chunk's memory after this callback returns: copy it out.
    chunks.push(Buffer.from(new Uint8Array(chunk)));
    if (isLast) onDone(Buffer.concat(chunks));
  });
}

/**
 * Registers the feeds' WebSocket routes: a bounded number of sockets, small inbound messages,
 * idle timeout with automatic pings, and a backpressure limit past which a slow subscriber is
 * closed (it reconnects and gets the current state again) instead of buffering without end.
 */
function openFeeds(app: uWS.TemplatedApp, feeds: readonly Feed[], maxSockets: number, refuse: () => boolean): () => void {
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

/** Creates the uWS front end over the given routes. */
export function createHttpServer(config: HttpServerConfig): HttpServer {
  const lookup = createRouteTable([...config.routes, ...feedRoutes(config.feeds ?? [])], config.prefixRoutes ?? []);
  const trusted = trustedProxySet(config.trustedProxies ?? []);
  const app = uWS.App();
  let listenSocket: uWS.us_listen_socket | null = null;
  // Requests in flight (streams until their last byte): close() waits for them and aborts the
  // ones the drain deadline leaves behind.
  const running = new Set<AbortController>();
  let draining = false;
  let drained: (() => void) | null = null;
  const closeFeeds = openFeeds(app, config.feeds ?? [], config.maxFeedSockets ?? FEED_MAX_SOCKETS, () => draining);

  const done = (state: { started: number; controller: AbortController }, status: number) => {
    running.delete(state.controller);
    config.onResponse?.(status, performance.now() - state.started);
    if (draining && running.size === 0) drained?.();
  };
  const finish = (res: uWS.HttpResponse, state: { aborted: boolean; started: number; signal: AbortSignal; controller: AbortController }, reply: AnyReply) => {
    // A stream counts as in flight until its last byte: close() lets it finish like any request.
    if ('stream' in reply)
      return void writeStream(
        res,
        reply,
        () => writeHead(res, reply),
        state.signal,
        () => draining,
      ).then(() => done(state, reply.status));
    if (!state.aborted) write(res, reply, draining);
    done(state, reply.status);
  };

  app.any('/*', (res, req) => {
    const controller = new AbortController();
    const state = { aborted: false, started: performance.now(), signal: controller.signal, controller };
    running.add(controller);
    res.onAborted(() => {
      state.aborted = true;
      controller.abort();
    });
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const query = req.getQuery() ?? '';
    const { headers, bytes } = copyHeaders(req);
    const remoteIp = clientAddress(Buffer.from(res.getRemoteAddressAsText()).toString(), headers['x-forwarded-for'], trusted);

    if (path.length + query.length > MAX_URL_BYTES)
      return finish(res, state, errorReply({ error: 'uri_too_long', message: `request target exceeds ${MAX_URL_BYTES} bytes` }));
    if (bytes > MAX_HEADER_BYTES)
      return finish(res, state, errorReply({ error: 'headers_too_large', message: `request headers exceed ${MAX_HEADER_BYTES} bytes` }));
    if (draining) return finish(res, state, errorReply({ error: 'shutting_down', message: 'the service is shutting down' }, { 'Retry-After': '5' }));
    if (method === 'OPTIONS') return finish(res, state, { status: 204, headers: PREFLIGHT_HEADERS, body: '' });
    const refused = config.admit?.({ remoteIp, headers, path });
    if (refused) return finish(res, state, refused);

    const found = lookup(method === 'HEAD' ? 'GET' : method, path);
    if (typeof found !== 'function') return finish(res, state, found);
    const run = (body: Buffer | null) => {
      const data: HttpRequestData = { method, path, query, headers, remoteIp, body, signal: controller.signal };
      Promise.resolve()
        .then(() => found(data))
        .catch(replyForError)
        .then((reply) => finish(res, state, reply));
    };
    if (method !== 'POST') return run(null);
    readBody(res, (body) => {
      if (body === null) return finish(res, state, errorReply({ error: 'payload_too_large', message: `request body exceeds ${MAX_BODY_BYTES} bytes` }));
      run(body);
    });
  });

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (!socket) return reject(new Error(`cannot listen on ${host}:${port}`));
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
      closeFeeds();
      if (running.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        // Past the deadline the stragglers' signals fire (their upstream calls are abandoned) and
        // they get ABORT_GRACE_MS to unwind; a handler that ignores its signal is left behind.
        let timer = setTimeout(() => {
          for (const c of running) c.abort(new Error('the drain deadline passed'));
          timer = setTimeout(resolve, ABORT_GRACE_MS);
        }, config.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
        drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
    inFlight: () => running.size,
    publish: (path, message) => void app.publish(path, message, false, false),
    subscribers: (path) => app.numSubscribers(path),
  };
}

/**
 * A bare uWebSockets.js hello-world: the reference the HTTP benchmarks compare our routes to.
 * The one import of uWS outside src/http, by design: it is a measuring stick for the benchmark,
 * not service code, and it must stay bare uWS so the ratio measures what our routes add.
 *
 * Given a file of replies captured from the service (its 402 and its 400), it writes those
 * instead, byte for byte (status line, headers in order, body), with no work between request and
 * reply: the ceiling of a path that must send those bytes, which tells how much of the gap to
 * hello-world is the reply's size and how much is our work.
 *
 *   node --import tsx bench/http/hello-server.ts [REPLIES.json]    (REPLIES: path -> CapturedReply)
 */
import { readFileSync } from 'node:fs';
import uWS from 'uWebSockets.js';

/** A reply as the service sent it; `headers` in order, without those uWS writes itself. */
export interface CapturedReply {
  readonly statusLine: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: string;
}

/**
 * Appended to a captured reply's path: the same bytes, written after reading the peer's address
 * as the service must on every request (its free rate limit keys on it, and uWS asks the kernel
 * each time, a `getpeername` per request). The ceiling of a path that sends those bytes to a
 * rate-limited client.
 */
export const PEER_PATH_SUFFIX = '/peer';

/** Headers uWS writes on every reply (or the connection owns): a captured copy would double them. */
export const HEADERS_UWS_WRITES: ReadonlySet<string> = new Set(['content-length', 'date', 'uwebsockets', 'connection', 'keep-alive', 'transfer-encoding']);

/** Starts a server answering each path of `replies` with its captured reply; resolves with its port. */
export function startSameBytes(host: string, port: number, replies: Readonly<Record<string, CapturedReply>>): Promise<{ port: number; close(): void }> {
  const app = uWS.App();
  for (const [path, reply] of Object.entries(replies)) {
    // Encoded once, as the service writes a kept reply (src/http/server/reply-writer.ts): the status
    // line and every header as one `writeStatus` Buffer (uWS adds `HTTP/1.1 ` and the closing
    // CRLF), the body as a Buffer. A `writeHeader` per header converted the 2.8 kB
    // `PAYMENT-REQUIRED` string on every request, a cost of this server's and not of the bytes,
    // which made the ceiling lower than the service's own way of writing them. Written in the
    // request's callback, which uWS corks (the service's `cork` there was dropped for the same reason).
    const head = Buffer.from([reply.statusLine, ...reply.headers.map(([k, v]) => `${k}: ${v}`)].join('\r\n'));
    const body = Buffer.from(reply.body);
    const send = (res: uWS.HttpResponse): void => {
      res.writeStatus(head);
      res.end(body);
    };
    app.get(path, send);
    // The bytes form: the cheapest read of the address uWS offers.
    app.get(`${path}${PEER_PATH_SUFFIX}`, (res) => {
      res.getRemoteAddress();
      send(res);
    });
  }
  return listen(app, host, port);
}

/** Starts the reference server; resolves with its port and a close function. */
export function startHelloWorld(host: string, port: number): Promise<{ port: number; close(): void }> {
  const app = uWS.App().get('/*', (res) => {
    res.end('Hello World!');
  });
  return listen(app, host, port);
}

function listen(app: uWS.TemplatedApp, host: string, port: number): Promise<{ port: number; close(): void }> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (!socket) return reject(new Error(`the bench server cannot listen on ${host}:${port}`));
      resolve({ port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket), close: () => uWS.us_listen_socket_close(socket) });
    });
  });
}

// Run as a child by the benchmark (`node --import tsx bench/http/hello-server.ts`): its own process,
// like the service and the reference, so none of them shares an event loop with another.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const repliesFile = process.argv[2];
  const running = repliesFile
    ? await startSameBytes('127.0.0.1', 0, JSON.parse(readFileSync(repliesFile, 'utf8')) as Record<string, CapturedReply>)
    : await startHelloWorld('127.0.0.1', 0);
  console.log(`listening ${running.port}`);
  process.on('SIGTERM', () => {
    running.close();
    process.exit(0);
  });
}

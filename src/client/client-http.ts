/**
 * The client library's HTTP: GETs on kept connections of its own (`node:net`, or `node:tls` for
 * https), each request one write of a string built here, each answer read whole as bytes (a
 * receipt covers the exact bytes) by http-response-reader.ts. Neither `fetch` nor `node:http`:
 * undici's fetch spent about 1.7 ms of CPU per call in the channel bench, and `node:http`'s request
 * and agent machinery (objects, events, header checks per call) was a third of the library's own
 * CPU per paid call; a bot's calls are mostly this trip. One request at a time per connection (no
 * pipelining: a lost answer must be retried alone); idle connections are kept, unreferenced, until
 * the service closes them. A failure to connect or a deadline passed is thrown as Node's own error
 * (its `code`, or a `TimeoutError`), never a 4xx; an answer cut before its end is `ECONNRESET`.
 */
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { type HttpAnswer, ResponseReader } from './http-response-reader.ts';

export type { HttpAnswer };

/** A keep-alive GET client of one service. */
export interface ClientHttp {
  get(pathAndQuery: string, headers: Readonly<Record<string, string>>, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer>;
  /** Closes the kept connections. */
  close(): void;
}

/** Idle connections kept at most (calls at once beyond this open connections that close after). */
const MAX_IDLE_CONNECTIONS = 32;
/** What a request target and a header value may hold (visible ASCII; a value also spaces and tabs). */
const TARGET_RE = /^\/[\x21-\x7e]*$/;
const VALUE_RE = /^[\t\x20-\x7e]*$/;
const NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Errors of a kept connection that closed under a new request. */
const RESENT = new Set(['ECONNRESET', 'EPIPE']);

function timeoutError(ms: number): Error {
  const err = new Error(`no answer within ${ms} ms`);
  err.name = 'TimeoutError';
  return err;
}

function hangUp(): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error('the connection closed before the answer ended');
  err.code = 'ECONNRESET';
  return err;
}

/** One kept connection: at most one request on it at a time. */
class Connection {
  readonly reader = new ResponseReader();
  closed = false;
  private waiting: { resolve: (a: HttpAnswer) => void; reject: (e: Error) => void } | null = null;

  constructor(
    readonly socket: Socket,
    private readonly release: (c: Connection) => void,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err: Error) => this.fail(err));
    socket.on('close', () => this.onClose());
  }

  send(head: string): Promise<HttpAnswer> {
    this.socket.ref();
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(head, 'latin1');
    });
  }

  destroy(err?: Error): void {
    this.closed = true;
    this.socket.destroy(err);
  }

  private onData(chunk: Buffer): void {
    // Bytes nobody asked for (on an idle connection): the connection cannot be trusted to frame the next answer.
    if (!this.waiting) {
      this.destroy();
      return;
    }
    let answer: HttpAnswer | null;
    try {
      answer = this.reader.push(chunk);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    if (answer) this.settle(answer);
  }

  private settle(answer: HttpAnswer): void {
    const waiting = this.waiting;
    this.waiting = null;
    if (!waiting || this.reader.leftover || !this.reader.keepAlive) this.destroy();
    if (!waiting) return;
    if (!this.closed) {
      this.socket.unref();
      this.release(this);
    }
    waiting.resolve(answer);
  }

  private onClose(): void {
    this.closed = true;
    if (!this.waiting) return;
    let answer: HttpAnswer | null = null;
    try {
      answer = this.reader.end();
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    if (answer) this.settle(answer);
    else this.fail(hangUp());
  }

  private fail(err: Error): void {
    this.closed = true;
    this.socket.destroy();
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(err);
  }
}

/** A client of the service at `base` (`http(s)://host[:port][/prefix]`, no trailing slash). */
export function createClientHttp(base: string): ClientHttp {
  const url = new URL(base);
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (secure ? 443 : 80));
  const prefix = url.pathname.replace(/\/+$/, '');
  const fixedHead = `host: ${url.host}\r\naccept: application/json\r\n`;
  const idle: Connection[] = [];
  const open = new Set<Connection>();

  function release(c: Connection): void {
    if (idle.length < MAX_IDLE_CONNECTIONS) idle.push(c);
    else c.destroy();
  }

  function connect(): Connection {
    const socket = secure ? tlsConnect({ host, port, ALPNProtocols: ['http/1.1'], ...(isIP(host) ? {} : { servername: host }) }) : netConnect({ host, port });
    const c = new Connection(socket, release);
    open.add(c);
    socket.once('close', () => {
      open.delete(c);
      const at = idle.indexOf(c);
      if (at >= 0) idle.splice(at, 1);
    });
    return c;
  }

  function headOf(pathAndQuery: string, headers: Readonly<Record<string, string>>): string {
    const target = `${prefix}${pathAndQuery}`;
    if (!TARGET_RE.test(target)) throw new TypeError('the request path holds characters a URL may not');
    let head = `GET ${target} HTTP/1.1\r\n${fixedHead}`;
    for (const name in headers) {
      const value = headers[name]!;
      if (!NAME_RE.test(name) || !VALUE_RE.test(value)) throw new TypeError(`the header ${name.slice(0, 40)} holds characters HTTP does not allow`);
      head += `${name}: ${value}\r\n`;
    }
    return `${head}\r\n`;
  }

  function nextIdle(): Connection | null {
    for (let c = idle.pop(); c; c = idle.pop()) if (!c.closed) return c;
    return null;
  }

  async function get(pathAndQuery: string, headers: Readonly<Record<string, string>>, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer> {
    if (signal?.aborted) throw signal.reason;
    const head = headOf(pathAndQuery, headers);
    let conn: Connection | null = null;
    let stopped: Error | null = null;
    // The request is abandoned: its connection is closed, never reused with an answer under way.
    const stop = (err: Error): void => {
      stopped = err;
      conn?.destroy(err);
    };
    const timer = setTimeout(() => stop(timeoutError(timeoutMs)), timeoutMs);
    const onAbort = (): void => stop(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (let sends = 1; ; sends++) {
        if (stopped) throw stopped;
        conn = nextIdle();
        const reused = conn !== null;
        conn ??= connect();
        try {
          const answer = await conn.send(head);
          return sends === 1 ? answer : { ...answer, sends };
        } catch (err) {
          // A kept connection the service closed before it answered a byte: sent anew on a fresh one
          // (an identical request, so a payment it carried is answered once, as a retry is).
          if (!stopped && reused && !conn.reader.started && RESENT.has((err as NodeJS.ErrnoException).code ?? '')) continue;
          throw stopped ?? err;
        }
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    get,
    close(): void {
      for (const c of open) c.destroy();
      idle.length = 0;
    },
  };
}

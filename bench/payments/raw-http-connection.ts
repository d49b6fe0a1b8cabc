/**
 * One keep-alive HTTP/1.1 connection that sends request bytes built ahead and reads each answer's
 * status line, `Content-Length` body and `Server-Timing` header, nothing more: the bench's load
 * generator, in the way wrk is one (a load generator that costs next to nothing, so that on a
 * 2-core machine the cores measure the service). `node:http` spent 435-644 µs of CPU per call here,
 * more than the service's main thread per call at 32 in flight; this spends a few tens.
 *
 * It understands only what the service sends to these requests: one answer per request, in order,
 * framed by `Content-Length`. Anything else (chunked framing, a closed socket with a request
 * waiting, bytes after the last answer) fails the call loudly rather than being guessed at.
 */
import { connect, type Socket } from 'node:net';

/** One answer, as much of it as the bench reads. */
export interface RawAnswer {
  readonly status: number;
  readonly timing: string;
}

export interface RawHttpConnection {
  /** Sends one request's bytes; resolves when its whole answer has arrived. One at a time. */
  send(request: Buffer): Promise<RawAnswer>;
  close(): void;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** The request's bytes: a GET of `target` with one `PAYMENT-SIGNATURE` header. */
export function rawGet(target: URL, paymentSignature: string): Buffer {
  return Buffer.from(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nPAYMENT-SIGNATURE: ${paymentSignature}\r\n\r\n`, 'latin1');
}

/** The status, the body's length and the Server-Timing of one answer's head (its bytes before the blank line). */
function parseHead(head: string): { status: number; length: number; timing: string } {
  const lines = head.split('\r\n');
  const status = Number(lines[0]!.slice(9, 12));
  let length = -1;
  let timing = '';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    if (name === 'content-length') length = Number(line.slice(colon + 1).trim());
    else if (name === 'server-timing') timing = line.slice(colon + 1).trim();
    else if (name === 'transfer-encoding') throw new Error(`answer framed by transfer-encoding (${line}): this client reads Content-Length only`);
  }
  if (!Number.isInteger(length) || length < 0) throw new Error(`answer without a Content-Length (status ${status})`);
  return { status, length, timing };
}

/** Opens the connection (Nagle off, as node:http does). */
export function createRawHttpConnection(target: URL): Promise<RawHttpConnection> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host: target.hostname, port: Number(target.port), noDelay: true });
    let buffered: Buffer = Buffer.alloc(0);
    let waiting: { resolve(a: RawAnswer): void; reject(e: Error): void } | null = null;
    const fail = (err: Error) => {
      const w = waiting;
      waiting = null;
      w?.reject(err);
    };
    const drain = () => {
      if (!waiting) {
        if (buffered.length > 0) fail(new Error('bytes arrived with no request waiting'));
        return;
      }
      const end = buffered.indexOf(HEAD_END);
      if (end < 0) return;
      const head = parseHead(buffered.toString('latin1', 0, end));
      const total = end + HEAD_END.length + head.length;
      if (buffered.length < total) return;
      buffered = buffered.subarray(total);
      const w = waiting;
      waiting = null;
      w.resolve({ status: head.status, timing: head.timing });
    };
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      try {
        drain();
      } catch (err) {
        fail(err as Error);
      }
    });
    socket.on('error', (err) => {
      fail(err);
      reject(err);
    });
    socket.on('close', () => fail(new Error('connection closed with a request waiting')));
    socket.once('connect', () =>
      resolve({
        send: (request) =>
          new Promise<RawAnswer>((res, rej) => {
            if (waiting) throw new Error('one request at a time on a raw connection');
            waiting = { resolve: res, reject: rej };
            socket.write(request);
          }),
        close: () => socket.destroy(),
      }),
    );
  });
}

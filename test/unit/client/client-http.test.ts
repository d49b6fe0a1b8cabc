/**
 * The client library's own HTTP/1.1 connections against a raw TCP server that writes answers byte
 * by byte as a test says (no HTTP library on either side): answers by length, chunked and until
 * the close, split anywhere; one kept connection for calls one after another; a kept connection the
 * service closed is replaced without a fault; an answer cut short is `ECONNRESET`; a deadline is a
 * `TimeoutError` and its connection is never reused; a hostile service's oversized or malformed
 * answer is an error, not memory without bound; a header or path that would split the request is
 * refused before a byte is sent.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClientHttp } from '../../../src/client/client-http.ts';
import { MAX_BODY_BYTES, ResponseReader } from '../../../src/client/http-response-reader.ts';

/** What the server does with each request it reads: its socket, the request head, the request's index on that socket. */
type Handler = (socket: Socket, head: string, n: number) => void;

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function serve(handler: Handler): Promise<{ base: string; connections: () => number; closed: () => number; heads: string[] }> {
  let connections = 0;
  let closed = 0;
  const heads: string[] = [];
  const server = createServer((socket) => {
    connections++;
    socket.on('close', () => closed++);
    let buffered = '';
    let n = 0;
    socket.on('error', () => undefined);
    socket.on('data', (d) => {
      buffered += d.toString('latin1');
      for (let at = buffered.indexOf('\r\n\r\n'); at >= 0; at = buffered.indexOf('\r\n\r\n')) {
        const head = buffered.slice(0, at);
        buffered = buffered.slice(at + 4);
        heads.push(head);
        handler(socket, head, n++);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { base: `http://127.0.0.1:${port}`, connections: () => connections, closed: () => closed, heads };
}

/** Writes `text` one byte per write, to split the answer at every place a read can be split. */
function dribble(socket: Socket, text: string): void {
  for (const ch of text) socket.write(ch, 'latin1');
}

describe('the client HTTP connections', () => {
  it('reads answers by length, chunked and until the close, split anywhere, with headers as node:http gives them', async () => {
    const { base, heads } = await serve((socket, head) => {
      if (head.startsWith('GET /prefix/len')) dribble(socket, 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\nx-a:  2 \r\n\r\nhello');
      else if (head.startsWith('GET /prefix/chunked '))
        dribble(socket, 'HTTP/1.1 402 Payment Required\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n');
      else socket.end('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\n\r\nuntil the close');
    });
    const http = createClientHttp(`${base}/prefix/`);
    const len = await http.get('/len?q=1', { 'payment-signature': 'eyJ4IjoxfQ==' }, 5000);
    expect(len).toEqual({ status: 200, headers: { 'content-length': '5', 'x-a': '1, 2' }, bytes: Buffer.from('hello') });
    const chunked = await http.get('/chunked', {}, 5000);
    expect([chunked.status, chunked.bytes.toString()]).toEqual([402, 'abcde']);
    const close = await http.get('/close', {}, 5000);
    expect([close.status, close.bytes.toString()]).toEqual([200, 'until the close']);
    expect(heads[0]).toBe(`GET /prefix/len?q=1 HTTP/1.1\r\nhost: ${new URL(base).host}\r\naccept: application/json\r\npayment-signature: eyJ4IjoxfQ==`);
    http.close();
  });

  it('keeps one connection for calls one after another, and replaces a kept one the service closed', async () => {
    const { base, connections, closed } = await serve((socket, _head, n) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      // The service closes each connection after its third answer, as an idle timeout would.
      if (n === 2) socket.end();
    });
    const http = createClientHttp(base);
    for (let i = 0; i < 3; i++) expect((await http.get('/x', {}, 5000)).status).toBe(200);
    expect(connections()).toBe(1);
    // Both ends closed: the client has read the service's close of its kept connection.
    await vi.waitUntil(() => closed() === 1);
    for (let i = 0; i < 2; i++) expect((await http.get('/x', {}, 5000)).status).toBe(200);
    expect(connections()).toBe(2);
    http.close();
  });

  it('sends a request anew once when a kept connection closes before a byte of its answer, and never on a fresh one', async () => {
    let requests = 0;
    const { base, connections } = await serve((socket, _head, n) => {
      requests++;
      // The first connection answers once and then drops the second request unanswered (a race with its idle close).
      if (n === 1 && connections() === 1) return void socket.destroy();
      if (requests >= 4) return void socket.destroy();
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    const http = createClientHttp(base);
    expect((await http.get('/x', {}, 5000)).sends).toBeUndefined();
    // Counted: the call's round trips say two requests went out for it.
    expect(await http.get('/x', {}, 5000)).toMatchObject({ status: 200, sends: 2 });
    expect([requests, connections()]).toEqual([3, 2]);
    // A fresh connection dropped without an answer is the caller's to retry: ECONNRESET.
    http.close();
    await expect(http.get('/x', {}, 5000)).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('throws ECONNRESET for an answer cut before its end, and a TimeoutError past the deadline without reusing that connection', async () => {
    let slow: Socket | null = null;
    const { base, connections } = await serve((socket, head) => {
      if (head.startsWith('GET /cut ')) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc');
      // Answered only after the client's deadline passed (below).
      else if (head.startsWith('GET /slow ')) slow = socket;
      else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    const http = createClientHttp(base);
    await expect(http.get('/cut', {}, 5000)).rejects.toMatchObject({ code: 'ECONNRESET' });
    await expect(http.get('/slow', {}, 100)).rejects.toMatchObject({ name: 'TimeoutError' });
    const before = connections();
    (slow as Socket | null)?.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nlate');
    // The late answer never lands on the next request: that one went out on a connection of its own.
    expect((await http.get('/x', {}, 5000)).bytes.toString()).toBe('ok');
    expect(connections()).toBe(before + 1);
    const aborted = new AbortController();
    const pending = http.get('/slow', {}, 5000, aborted.signal);
    aborted.abort(new Error('stopped'));
    await expect(pending).rejects.toThrow('stopped');
    http.close();
  });

  it("refuses a hostile service's oversized or malformed answer, and a request a header or path would split", async () => {
    const { base } = await serve((socket, head) => {
      if (head.startsWith('GET /big ')) socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`);
      else if (head.startsWith('GET /endless ')) {
        socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
        const chunk = `100000\r\n${'a'.repeat(0x100000)}\r\n`;
        const pump = (): void => void (socket.destroyed || (socket.write(chunk) ? setImmediate(pump) : socket.once('drain', pump)));
        pump();
      } else if (head.startsWith('GET /head ')) socket.write(`HTTP/1.1 200 OK\r\nX-Big: ${'b'.repeat(70_000)}`);
      else socket.write('SSH-2.0-OpenSSH\r\n\r\n');
    });
    const http = createClientHttp(base);
    for (const path of ['/big', '/endless', '/head', '/garbage'])
      await expect(http.get(path, {}, 20_000), path).rejects.toMatchObject({ code: 'ERR_BAD_RESPONSE' });
    await expect(http.get('/x', { 'payment-signature': 'a\r\nx-evil: 1' }, 5000)).rejects.toThrow(TypeError);
    await expect(http.get('/x y', {}, 5000)).rejects.toThrow(TypeError);
    http.close();
  }, 60_000);

  it('reads a 204 as an empty body and a connection: close answer as the last on its connection', () => {
    const reader = new ResponseReader();
    const answer = reader.push(Buffer.from('HTTP/1.1 204 No Content\r\nConnection: keep-alive, close\r\n\r\n'));
    expect(answer?.bytes.length).toBe(0);
    expect(reader.keepAlive).toBe(false);
  });
});

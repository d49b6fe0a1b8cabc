/**
 * What the front end copies out of each request before routing: the method (a GET keeps its
 * constant, another is upper-cased), and the headers' size against MAX_HEADER_BYTES (read from the
 * copy, without a wrapper object per request).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, MAX_HEADER_BYTES } from '../../src/http/server/server.ts';

/** Sends `head` as written on one connection and resolves with what came back once `done` says it is whole. */
function exchange(port: number, head: string, done: (got: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let got = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      got += d;
      if (done(got)) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('end', () => resolve(got));
    socket.on('error', reject);
  });
}

/** The answer's status line. */
const statusLine = async (port: number, head: string) => {
  const got = await exchange(port, head, (g) => g.includes('\r\n'));
  return got.slice(0, got.indexOf('\r\n'));
};

/** The whole answer (its body ends a line of the test's own making: `GET <probe>`). */
const answer = (port: number, head: string) => exchange(port, head, (g) => /\r\n\r\nGET \S+$/.test(g) || /^HTTP\/1\.1 [^2]/.test(g));

describe('front end request copy', () => {
  const server = createHttpServer({
    routes: [{ method: 'GET', path: '/echo', handler: (req) => ({ status: 200, body: `${req.method} ${req.headers['x-probe'] ?? ''}` }) }],
  });
  let port = 0;
  beforeAll(async () => {
    port = await server.listen('127.0.0.1', 0);
  });
  afterAll(() => server.close());

  it('routes GET to its handler as GET and another method to 405; uWS itself closes on a lower-case method', async () => {
    expect(await answer(port, 'GET /echo HTTP/1.1\r\nHost: x\r\nx-probe: GET\r\n\r\n')).toContain('\r\n\r\nGET GET');
    expect(await statusLine(port, 'DELETE /echo HTTP/1.1\r\nHost: x\r\n\r\n')).toBe('HTTP/1.1 405 Method Not Allowed');
    // Never reaches the front end (so the upper-casing after `GET` is only a guard): closed, nothing written.
    expect(await exchange(port, 'get /echo HTTP/1.1\r\nHost: x\r\n\r\n', () => false)).toBe('');
  });

  it('refuses headers over MAX_HEADER_BYTES, counted over the copied names and values, and not a byte under it', async () => {
    const header = (valueBytes: number) => `x-probe: ${'a'.repeat(valueBytes)}\r\n`;
    // Names and values as copied: `host` + `x` and `x-probe` + the value.
    const fits = MAX_HEADER_BYTES - 'hostx'.length - 'x-probe'.length;
    expect(await statusLine(port, `GET /echo HTTP/1.1\r\nHost: x\r\n${header(fits)}\r\n`)).toBe('HTTP/1.1 200 OK');
    expect(await statusLine(port, `GET /echo HTTP/1.1\r\nHost: x\r\n${header(fits + 1)}\r\n`)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
  });
});

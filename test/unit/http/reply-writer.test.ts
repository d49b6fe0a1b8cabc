/**
 * A frozen reply goes out encoded once (src/http/server/reply-writer.ts: its head as one
 * `writeStatus`, its body as bytes): on the wire it must be byte for byte what the same reply
 * written header by header is, and the byte bound must weigh it as it weighs any other.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpReply } from '../../../src/errors.ts';
import { repliedBytes, wireOf } from '../../../src/http/server/reply-writer.ts';
import { createHttpServer, type HttpServer } from '../../../src/http/server/server.ts';

const reply = (): HttpReply => ({
  status: 402,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'PAYMENT-REQUIRED': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' },
  body: '{"error":"payment_required","message":"pay – in USDC"}',
});
const FROZEN = Object.freeze({ ...reply(), headers: Object.freeze({ ...reply().headers }) });

/** One raw GET over a fresh connection: everything the server wrote, until it has written the whole answer. */
function rawGet(port: number, path: string, method = 'GET'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** The date uWS writes changes every second: the rest must be the same bytes. */
const withoutDate = (raw: string) => raw.replace(/\r\nDate: [^\r]*/, '');

describe('frozen replies written from their encoded bytes', () => {
  let server: HttpServer;
  let port: number;
  const weighed: Array<[string, number]> = [];
  beforeAll(async () => {
    server = createHttpServer({
      routes: [
        { method: 'GET', path: '/built', handler: () => reply() },
        { method: 'GET', path: '/kept', handler: () => FROZEN },
      ],
      meter: {
        counts: () => true,
        sent: (client, bytes) => {
          weighed.push([client, bytes]);
          return true;
        },
      },
    });
    port = await server.listen('127.0.0.1', 0);
  });
  afterAll(() => server.close());

  it('sends the same bytes as a reply written header by header, again and again', async () => {
    const built = withoutDate(await rawGet(port, '/built'));
    expect(built).toMatch(/^HTTP\/1\.1 402 Payment Required\r\nAccess-Control-Allow-Origin: \*\r\nAccess-Control-Expose-Headers: /);
    expect(built).toContain('\r\nPAYMENT-REQUIRED: eyJ4NDAyVmVyc2lvbiI6Mn0=\r\n');
    for (let i = 0; i < 3; i++) expect(withoutDate(await rawGet(port, '/kept'))).toBe(built);
  });

  it('weighs a kept reply as the byte bound weighs it written out', async () => {
    weighed.length = 0;
    const raw = await rawGet(port, '/kept');
    const built = await rawGet(port, '/built');
    expect(weighed.map(([, bytes]) => bytes)).toEqual([Buffer.byteLength(raw), Buffer.byteLength(built)]);
    expect(wireOf(FROZEN)?.bytes).toBe(repliedBytes(FROZEN, false));
  });

  it('answers HEAD of a kept reply with its head alone', async () => {
    const head = withoutDate(await rawGet(port, '/kept', 'HEAD'));
    const get = withoutDate(await rawGet(port, '/kept'));
    expect(head).toBe(get.slice(0, get.indexOf('\r\n\r\n') + 4));
  });

  it('encodes only frozen replies', () => {
    expect(wireOf(reply())).toBeNull();
    // Headers that may still change are read at each write.
    expect(wireOf(Object.freeze(reply()))).toBeNull();
    expect(wireOf(FROZEN)).toBe(wireOf(FROZEN));
  });
});

/**
 * The HTTP front end's WebSocket feeds on a real uWS server: the opening messages then what is
 * published, a plain GET answered 426, the cap on sockets (503 feed_full), a subscriber that
 * stops reading dropped at the backpressure limit instead of buffered without end, and close()
 * ending every feed socket (1001) so shutdown never waits on them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FEED_MAX_BACKPRESSURE_BYTES, FEED_SOCKETS_PER_CLIENT } from '../../src/http/server/feed.ts';
import { createHttpServer, type HttpServer } from '../../src/http/server/server.ts';
import { openFeed, rawUpgrade } from '../helpers/feed-client.ts';

const PATH = '/feed';
let server: HttpServer | null = null;

async function start(maxFeedSockets?: number): Promise<{ server: HttpServer; http: string; ws: string }> {
  let opened = 0;
  const feedSockets = maxFeedSockets === undefined ? undefined : { max: maxFeedSockets, perClient: FEED_SOCKETS_PER_CLIENT };
  server = createHttpServer({ routes: [], feeds: [{ path: PATH, onOpen: () => [`hello ${++opened}`, 'state'] }], feedSockets });
  const port = await server.listen('127.0.0.1', 0);
  return { server, http: `http://127.0.0.1:${port}${PATH}`, ws: `ws://127.0.0.1:${port}${PATH}` };
}

afterEach(async () => {
  await server?.close();
  server = null;
});

describe('WebSocket feeds', () => {
  it('sends the opening messages, then what is published, to every subscriber', async () => {
    const s = await start();
    const a = await openFeed(s.ws);
    const b = await openFeed(s.ws);
    expect([await a.next(), await a.next()]).toEqual(['hello 1', 'state']);
    expect([await b.next(), await b.next()]).toEqual(['hello 2', 'state']);
    expect(s.server.subscribers(PATH)).toBe(2);
    s.server.publish(PATH, '{"n":1}');
    expect([await a.next(), await b.next()]).toEqual(['{"n":1}', '{"n":1}']);
    a.socket.close();
    await a.closed;
    s.server.publish(PATH, '{"n":2}');
    expect(await b.next()).toBe('{"n":2}');
  });

  it('answers a plain GET of a feed with 426 and how to connect', async () => {
    const s = await start();
    const res = await fetch(s.http);
    expect(res.status).toBe(426);
    expect(res.headers.get('upgrade')).toBe('websocket');
    expect(await res.json()).toEqual({ error: 'upgrade_required', message: '/feed is a WebSocket feed: connect with a WebSocket client (Upgrade: websocket)' });
  });

  it('refuses sockets beyond the cap with 503 feed_full', async () => {
    const s = await start(1);
    const first = await openFeed(s.ws);
    const refused = await rawUpgrade(s.http);
    expect('refused' in refused && refused.refused.status).toBe(503);
    if (!('refused' in refused)) return;
    expect(refused.refused.headers['retry-after']).toBe('30');
    expect(JSON.parse(refused.refused.body)).toMatchObject({ error: 'feed_full' });
    // A freed place is taken again.
    first.socket.close();
    await first.closed;
    const again = await openFeed(s.ws);
    expect(await again.next()).toBe('hello 2');
  });

  it('drops a subscriber that stops reading once it falls behind by the backpressure limit', async () => {
    const s = await start();
    const upgrade = await rawUpgrade(s.http);
    if (!('upgraded' in upgrade)) throw new Error('the upgrade was refused');
    const stalled = upgrade.upgraded;
    stalled.pause();
    let received = 0;
    const ended = new Promise<void>((resolve) => stalled.on('close', () => resolve()));
    stalled.on('data', (c: Buffer) => {
      received += c.length;
    });
    // Far more than the limit plus every kernel buffer on the way: the stalled socket must fall behind.
    const chunk = 'x'.repeat(64 * 1024);
    const rounds = 512;
    for (let i = 0; i < rounds; i++) s.server.publish(PATH, chunk);
    stalled.resume();
    await ended;
    expect(received).toBeLessThan(rounds * chunk.length);
    expect(rounds * chunk.length).toBeGreaterThan(100 * FEED_MAX_BACKPRESSURE_BYTES);
    expect(s.server.subscribers(PATH)).toBe(0);
    // The feed itself goes on: a subscriber that reads gets what comes next.
    const fresh = await openFeed(s.ws);
    expect([await fresh.next(), await fresh.next()]).toEqual(['hello 2', 'state']);
    s.server.publish(PATH, 'after');
    expect(await fresh.next()).toBe('after');
  });

  it('closes every feed socket on close(), which then resolves', async () => {
    const s = await start();
    const a = await openFeed(s.ws);
    const b = await openFeed(s.ws);
    await s.server.close();
    server = null;
    expect(await a.closed).toBe(1001);
    expect(await b.closed).toBe(1001);
  });
});

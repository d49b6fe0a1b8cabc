/**
 * Attacks on the front end's sockets (docs/security.md#sockets-the-pool-proxies-and-processes),
 * against the real service: uploads announced and never sent, then dropped; live-ledger sockets
 * held by one client. The service sits behind a trusted proxy (loopback), so each test's clients
 * are told apart by `X-Forwarded-For`; the free limit's clock is pinned (no refill).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LEDGER_FEED_PATH } from '../../src/http/routes/ledger-feed.ts';
import { rawUpgrade } from '../helpers/feed-client.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const FREE_BURST = 10;
let t: TestService;
beforeAll(async () => {
  const limits = ['--trusted-proxies', '127.0.0.1', '--free-rate-per-second', '1', '--free-burst', String(FREE_BURST)];
  const feeds = ['--feed-max-sockets', '6', '--feed-sockets-per-client', '3'];
  const pinned = new Date('2026-11-27T12:00:00Z');
  t = await startTestService({ now: () => pinned }, [...limits, ...feeds]);
});
afterAll(async () => t?.close());

/** Opens a connection and sends `head` (and a body's beginning), leaving the rest unsent. */
function partialRequest(port: number, head: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head, () => resolve(socket)));
    socket.on('error', reject);
  });
}

describe('aborted uploads', () => {
  it('200 POST /mcp announcing 60,000 bytes, sending 10, then closing: none stays in flight', async () => {
    // From 200 clients, so that the free limit lets every one in.
    const head = (i: number) =>
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 10.6.0.${i}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"jsonrpc"`;
    const sockets = await Promise.all(Array.from({ length: 200 }, (_, i) => partialRequest(t.service.port, head(i))));
    // Tracked while the bodies are awaited: the count is the service's, not a guess.
    await vi.waitUntil(() => t.service.inFlight() === 200, { timeout: 20_000 });
    for (const s of sockets) s.destroy();
    // Before the fix they stayed in flight for ever, and a shutdown waited its whole drain time for them.
    await vi.waitUntil(() => t.service.inFlight() === 0, { timeout: 20_000 });
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });
});

/** Upgrades to the live ledger as client `ip`: the socket when upgraded, else the refusal's status and error code. */
async function upgradeAs(ip: string): Promise<{ socket: Socket } | { status: number; error: string }> {
  const r = await rawUpgrade(`${t.url}${LEDGER_FEED_PATH}`, { 'X-Forwarded-For': ip });
  return 'upgraded' in r ? { socket: r.upgraded } : { status: r.refused.status, error: JSON.parse(r.refused.body).error };
}
const held: Socket[] = [];
const outcome = (r: Awaited<ReturnType<typeof upgradeAs>>) => {
  if ('socket' in r) held.push(r.socket);
  return 'socket' in r ? 101 : `${r.status} ${r.error}`;
};
afterAll(() => {
  for (const s of held) s.destroy();
});

describe('live ledger sockets', () => {
  it('one client holding sockets up to the global cap does not shut out another client', async () => {
    const first: (number | string)[] = [];
    for (let i = 0; i < 6; i++) first.push(outcome(await upgradeAs('10.9.0.1')));
    // Before the fix all six got in (the whole global cap) and the other client got 503 feed_full.
    expect(first).toEqual([101, 101, 101, '429 rate_limited', '429 rate_limited', '429 rate_limited']);
    expect(outcome(await upgradeAs('10.9.0.2'))).toBe(101);
  });

  it('an upgrade takes a token of the free rate limit like any free request', async () => {
    for (let i = 0; i < FREE_BURST; i++) expect((await fetch(`${t.url}/health`, { headers: { 'X-Forwarded-For': '10.9.0.3' } })).status).toBe(200);
    // Before the fix upgrades skipped the limit: this one got in.
    expect(outcome(await upgradeAs('10.9.0.3'))).toBe('429 rate_limited');
  });
});

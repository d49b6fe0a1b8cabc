/**
 * Amplification (docs/security.md#bytes-without-a-payment): a small request that pulls a large
 * answer. One client address pulls by every method (GET of a paid route's 402 and of the largest
 * documents, HEAD, an MCP batch of unpaid tool calls, the live ledger's WebSocket) and what it
 * is sent stays within its byte bucket plus the one answer that overdrew it; another address is
 * still served; a client that owes bytes has its feed socket closed at the next publish. The
 * service's clock is pinned (no refill), the request limit is far above what the test sends, and
 * the byte bucket is small, so the bound is exact. Bytes are counted on the client's sockets.
 */
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { LEDGER_FEED_PATH } from '../../src/http/routes/ledger-feed.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { BASE } from '../helpers/channel-payer.ts';
import { rawUpgrade } from '../helpers/feed-client.ts';
import { RAW_MCP_HEADERS } from '../helpers/mcp-client.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const BYTE_BURST = 65_536;
let t: TestService;
beforeAll(async () => {
  const pinned = new Date('2026-11-28T12:00:00Z');
  const limits = ['--free-rate-per-second', '1', '--free-burst', '100000', '--free-bytes-per-second', '1', '--free-bytes-burst', String(BYTE_BURST)];
  t = await startTestService({ now: () => pinned }, ['--trusted-proxies', '127.0.0.1', ...limits], FULL_TRAFFIC);
  // A few ledger entries, so a feed socket opens on a backlog as it would on a live service.
  const pay = payingFetch(await basePayer());
  for (let i = 0; i < 3; i++) expect((await pay(`${t.url}/v1/epoch`)).status).toBe(200);
  const ledger = (await (await fetch(`${t.url}/ledger`, { headers: { 'X-Forwarded-For': '10.44.9.8' } })).json()) as { count: number };
  openingMessages = 1 + ledger.count;
}, 120_000);
afterAll(async () => t?.close());

async function basePayer(): Promise<x402Client> {
  const evm = t.localnet!.evm;
  const key = generateEvmKey();
  await evm.fundUsdc(evmAddressOfKey(key), 100_000n);
  const client = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE && a.scheme === 'exact')!);
  client.setSpendControls({ allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
  client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
  return client;
}
/** The official client's fetch, from a client address of its own. */
const payingFetch = (client: x402Client) =>
  wrapFetchWithPayment((input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('X-Forwarded-For', '10.44.9.9');
    return fetch(input, { ...init, headers });
  }, client) as typeof fetch;

interface Pulled {
  readonly status: number;
  /** Every byte the client read on its connection: status line, headers, content. */
  readonly bytes: number;
  /** A feed socket left open. */
  readonly socket?: Socket;
}

/** One request on a connection of its own as client `ip`; the bytes read are the socket's. */
function pull(ip: string, method: string, path: string, body?: string): Promise<Pulled> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'X-Forwarded-For': ip, Connection: 'close', ...(body ? RAW_MCP_HEADERS : {}) };
    const req = request(`${t.url}${path}`, { method, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => res.socket.once('close', () => resolve({ status: res.statusCode ?? 0, bytes: res.socket.bytesRead })));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Messages a new feed socket opens with: the checkpoint and the newest entries (the ledger holds fewer than the backlog's 20). */
let openingMessages = 0;

/** Upgrades to the live ledger as `ip`; the bytes it read once its opening messages are in (or the refusal's status). */
async function feed(ip: string): Promise<Pulled> {
  const r = await rawUpgrade(`${t.url}${LEDGER_FEED_PATH}`, { 'X-Forwarded-For': ip });
  if ('refused' in r) return { status: r.refused.status, bytes: r.refused.body.length };
  let received = '';
  r.upgraded.on('data', (c: Buffer) => {
    received += c.toString('latin1');
  });
  await vi.waitUntil(() => received.split('"type":').length - 1 >= openingMessages, { timeout: 10_000 });
  return { status: 101, bytes: r.upgraded.bytesRead, socket: r.upgraded };
}

const toolCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'tipfloor', arguments: {} } });
const BATCH = JSON.stringify(Array.from({ length: 50 }, (_, i) => toolCall(i + 1)));
const sockets: Socket[] = [];
afterAll(() => {
  for (const s of sockets) s.destroy();
});

describe('bytes sent without a payment', () => {
  it('stay within the byte bucket, by GET, HEAD, an MCP batch and the live feed alike, and another client is still served', async () => {
    const me = '10.44.0.1';
    const served: Pulled[] = [];
    const refused: Pulled[] = [];
    for (let round = 0; round < 6; round++) {
      const pulled = [
        await pull(me, 'GET', '/v1/tipfloor'),
        await pull(me, 'HEAD', '/v1/tipfloor'),
        await pull(me, 'GET', '/openapi.json'),
        await pull(me, 'POST', '/mcp', BATCH),
        await feed(me),
      ];
      for (const p of pulled) {
        if (p.socket) sockets.push(p.socket);
        (p.status === 429 ? refused : served).push(p);
      }
    }
    const sent = served.reduce((n, p) => n + p.bytes, 0);
    const largest = Math.max(...served.map((p) => p.bytes));
    // Before: nothing bounded the bytes: every request of the six rounds was served (each MCP batch alone about 560 kB).
    expect(refused.length).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(BYTE_BURST + largest);
    // A refusal is small: it is the one answer a limited client still gets.
    expect(Math.max(...refused.map((p) => p.bytes))).toBeLessThan(1_000);
    expect((await pull('10.44.0.2', 'GET', '/v1/tipfloor')).status).toBe(402);
  }, 60_000);

  it('a client that owes bytes has its feed socket closed when the feed next publishes', async () => {
    const me = '10.44.0.3';
    const opened = await rawUpgrade(`${t.url}${LEDGER_FEED_PATH}`, { 'X-Forwarded-For': me });
    expect('upgraded' in opened).toBe(true);
    const socket = (opened as { upgraded: Socket }).upgraded;
    sockets.push(socket);
    let frames = '';
    let closed = false;
    socket.on('data', (c: Buffer) => {
      frames += c.toString('latin1');
    });
    socket.on('close', () => {
      closed = true;
    });
    while ((await pull(me, 'GET', '/openapi.json')).status !== 429);
    // A paid call of another client appends an entry: the feed publishes it, and this client's share is spent.
    expect((await payingFetch(await basePayer())(`${t.url}/v1/epoch`)).status).toBe(200);
    // Before: the socket stayed open and went on receiving whatever the feed published.
    await vi.waitUntil(() => closed, { timeout: 10_000 });
    expect(frames).toContain('this client has used its bytes without a payment');
  }, 60_000);
});

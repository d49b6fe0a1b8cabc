/**
 * HEAD on every route and payment state in shared caches, against the real service
 * (docs/security.md#head-and-shared-caches). A HEAD answer carries the GET's headers, its
 * Content-Length included, and not one byte of content, so a kept-alive client (a mirror, a CDN
 * reusing connections across users) reads the next response where it starts; a HEAD takes a token
 * of the free limit like a GET. No 402, error or MCP answer may be kept by a cache (`no-store`),
 * a paid 200 only by the payer's own (`private`), while the tiles stay as cacheable as documented.
 * The service sits behind a trusted proxy (loopback) so each test is its own client; the free
 * limit's clock is pinned (no refill).
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { BASE, channelPayer } from '../helpers/channel-payer.ts';
import { RAW_MCP_HEADERS } from '../helpers/mcp-client.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const FREE_BURST = 40;
let t: TestService;
beforeAll(async () => {
  const pinned = new Date('2026-11-28T12:00:00Z');
  t = await startTestService(
    { now: () => pinned },
    ['--trusted-proxies', '127.0.0.1', '--free-rate-per-second', '1', '--free-burst', String(FREE_BURST)],
    FULL_TRAFFIC,
  );
});
afterAll(async () => t?.close());

/** A paid route's 402, a 404, a free JSON route, the signed note, a document, a 405 and a 400. */
const PATHS = ['/v1/tipfloor', '/no-such-route', '/ledger', '/checkpoint', '/openapi.json', '/mcp', '/v1/smri?mint=x'];

interface RawResponse {
  readonly status: number;
  readonly headers: Map<string, string>;
  readonly body: Buffer;
}

/** Splits what one connection received into responses: HEAD answers have no content whatever their Content-Length. */
function parseResponses(bytes: Buffer, methods: readonly string[]): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let at = 0;
  for (const method of methods) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const [statusLine, ...lines] = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = method === 'HEAD' ? 0 : Number(headers.get('content-length') ?? 0);
    responses.push({ status: Number(statusLine!.split(' ')[1]), headers, body: bytes.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return { responses, rest: bytes.subarray(at) };
}

/**
 * Sends the requests pipelined on one socket as client `ip`, the last asking the server to close
 * the connection after it; resolves with what arrived once the server closed it (so any stray
 * bytes after the last response are in `rest`).
 */
function pipelined(ip: string, requests: readonly (readonly [string, string])[]): Promise<{ responses: RawResponse[]; rest: Buffer }> {
  const last = requests.length - 1;
  const text = requests
    .map(([m, p], i) => `${m} ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: ${ip}\r\n${i === last ? 'Connection: close\r\n' : ''}\r\n`)
    .join('');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(t.service.port, '127.0.0.1', () => socket.write(text));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () =>
      resolve(
        parseResponses(
          Buffer.concat(chunks),
          requests.map(([m]) => m),
        ),
      ),
    );
    socket.on('error', reject);
  });
}

/** The headers that differ per answer by nature: the date. */
const comparable = (h: Map<string, string>) => [...h].filter(([k]) => k !== 'date').sort(([a], [b]) => a.localeCompare(b));

describe('HEAD', () => {
  it('answers each route with the GET’s headers and Content-Length, and no content: the next response on the connection starts where it should', async () => {
    const requests = PATHS.flatMap((p) => [['GET', p] as const, ['HEAD', p] as const]);
    // /checkpoint's note signed first: its first answer at a tree size waits for a signature (in a
    // worker when the loop is busy, as right after start), and uWS closes a connection on which a
    // request is pipelined behind an answer still being made, with nothing sent, not even the
    // answers before it (docs/security.md#head-and-shared-caches). This test reads the framing of
    // answers that are ready.
    expect((await fetch(`${t.url}/checkpoint`, { headers: { 'X-Forwarded-For': '10.43.0.9' } })).status).toBe(200);
    const { responses, rest } = await pipelined('10.43.0.1', [...requests, ['GET', '/health']]);
    // Before the fix the HEAD answers carried the GET's body (402: its JSON, 404: 79 bytes, /ledger, /checkpoint):
    // the responses after the first HEAD were read out of step and `rest` held the last body.
    expect(responses).toHaveLength(requests.length + 1);
    expect(rest.length).toBe(0);
    for (let i = 0; i < PATHS.length; i++) {
      const get = responses[2 * i]!;
      const head = responses[2 * i + 1]!;
      expect(head.status, PATHS[i]).toBe(get.status);
      expect(Number(head.headers.get('content-length')), PATHS[i]).toBe(get.body.length);
      expect(get.body.length, PATHS[i]).toBeGreaterThan(0);
      // The 402's signed offers carry a time: compare the paid route's headers by name only.
      if (get.status === 402) expect(comparable(head.headers).map(([k]) => k)).toEqual(comparable(get.headers).map(([k]) => k));
      else if (PATHS[i] !== '/checkpoint') expect(comparable(head.headers), PATHS[i]).toEqual(comparable(get.headers));
    }
    expect(responses.at(-1)!.status).toBe(200);
    expect(JSON.parse(responses.at(-1)!.body.toString()).status).toBeDefined();
  });

  it('a kept-alive Node client keeps working after a HEAD on its connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${t.url}${path}`, { method, agent, headers: { 'X-Forwarded-For': '10.43.0.2' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    const seen: (number | string)[] = [];
    for (const path of ['/v1/tipfloor', '/no-such-route', '/ledger', '/checkpoint', '/openapi.json']) {
      seen.push(await send('HEAD', path));
      // Before the fix each of these failed with HPE_INVALID_CONSTANT: the HEAD's body was read as its response.
      seen.push(await send('GET', '/health').catch((err: Error & { code?: string }) => err.code ?? err.message));
    }
    agent.destroy();
    expect(seen).toEqual([402, 200, 404, 200, 200, 200, 200, 200, 200, 200]);
  });

  it('never settles a payment: a HEAD carrying one gets the 402’s head, and the payment still buys its GET', async () => {
    const me = { 'X-Forwarded-For': '10.43.0.5' };
    const evm = t.localnet!.evm;
    const key = generateEvmKey();
    await evm.fundUsdc(evmAddressOfKey(key), 100_000n);
    const client = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE && a.scheme === 'exact')!);
    client.setSpendControls({ allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
    client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
    const challenge = await fetch(`${t.url}/v1/epoch`, { headers: me });
    const payment = await client.createPaymentPayload(decodePaymentRequiredHeader(challenge.headers.get('payment-required')!));
    const header = { ...me, 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(payment)).toString('base64') };
    const head = await fetch(`${t.url}/v1/epoch`, { method: 'HEAD', headers: header });
    // A HEAD carries no content: settling its payment would charge for an answer nobody receives.
    expect([head.status, head.headers.get('payment-response')]).toEqual([402, null]);
    const get = await fetch(`${t.url}/v1/epoch`, { headers: header });
    await get.arrayBuffer();
    expect(get.status).toBe(200);
  });

  it('takes a token of the free limit like a GET', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < FREE_BURST + 2; i++) {
      const res = await fetch(`${t.url}/ledger`, { method: 'HEAD', headers: { 'X-Forwarded-For': '10.43.0.3' } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array<number>(FREE_BURST).fill(200), 429, 429]);
  });
});

describe('the library’s version header', () => {
  it('is on no answer and no upgrade', async () => {
    const { responses } = await pipelined('10.43.0.4', [
      ['GET', '/health'],
      ['GET', '/v1/tipfloor'],
      ['HEAD', '/ledger'],
    ]);
    // Before: `uWebSockets: 20` on every one.
    for (const r of responses) expect([...r.headers.keys()]).not.toContain('uwebsockets');
    const upgrade = await new Promise<string>((resolve, reject) => {
      const socket = connect(t.service.port, '127.0.0.1', () =>
        socket.write(
          'GET /ledger/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 10.43.0.4\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
        ),
      );
      socket.once('data', (c: Buffer) => {
        socket.destroy();
        resolve(c.toString('latin1'));
      });
      socket.on('error', reject);
    });
    expect(upgrade.startsWith('HTTP/1.1 101')).toBe(true);
    expect(upgrade.toLowerCase()).not.toContain('uwebsockets');
  });
});

describe('shared caches', () => {
  const me = { 'X-Forwarded-For': '10.43.1.1' };
  const cacheControl = async (res: Response) => {
    await res.arrayBuffer();
    return [res.status, res.headers.get('cache-control')];
  };

  it('no 402 may be kept, GET or HEAD; no error either', async () => {
    // Before: no Cache-Control on any of them.
    expect(await cacheControl(await fetch(`${t.url}/v1/tipfloor`, { headers: me }))).toEqual([402, 'no-store']);
    expect(await cacheControl(await fetch(`${t.url}/v1/tipfloor`, { method: 'HEAD', headers: me }))).toEqual([402, 'no-store']);
    expect(await cacheControl(await fetch(`${t.url}/v1/tipfloor`, { headers: { ...me, 'PAYMENT-SIGNATURE': 'x' } }))).toEqual([402, 'no-store']);
    expect(await cacheControl(await fetch(`${t.url}/no-such-route`, { headers: me }))).toEqual([404, 'no-store']);
    expect(await cacheControl(await fetch(`${t.url}/v1/smri?mint=x`, { headers: me }))).toEqual([400, 'no-store']);
  });

  it('a paid 200 only by the payer’s own cache, exact and channel alike, and its kept copy too', async () => {
    const evm = t.localnet!.evm;
    const key = generateEvmKey();
    await evm.fundUsdc(evmAddressOfKey(key), 100_000n);
    const client = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE && a.scheme === 'exact')!);
    client.setSpendControls({ allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
    client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
    let sent = '';
    const recording: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      sent = headers.get('payment-signature') ?? sent;
      return fetch(input, { ...init, headers: { ...Object.fromEntries(headers), ...me } });
    };
    const exact = await (wrapFetchWithPayment(recording, client) as typeof fetch)(`${t.url}/v1/tipfloor`);
    expect(exact.headers.get('payment-response')).toBeTruthy();
    // Before: no Cache-Control, so a shared cache could serve one payer's settlement and receipt to another.
    expect(await cacheControl(exact)).toEqual([200, 'private']);
    const kept = await fetch(`${t.url}/v1/tipfloor`, { headers: { ...me, 'PAYMENT-SIGNATURE': sent } });
    expect(await cacheControl(kept)).toEqual([200, 'private']);
    const { pay } = await channelPayer(evm, 100_000n, 10_000n);
    const channel = await pay(`${t.url}/v1/tipfloor`, { headers: me });
    expect(channel.headers.get('payment-response')).toBeTruthy();
    expect(await cacheControl(channel)).toEqual([200, 'private']);
  }, 60_000);

  it('no MCP answer may be kept', async () => {
    const call = (body: unknown) => fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...RAW_MCP_HEADERS, ...me }, body: JSON.stringify(body) });
    const tool = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tipfloor', arguments: {} } };
    const listed = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    // Before: the library's `no-cache, no-transform` (a cache may keep it, and serve it once revalidated).
    expect(await cacheControl(await call(tool))).toEqual([200, 'no-store, no-transform']);
    expect(await cacheControl(await call(listed))).toEqual([200, 'no-store, no-transform']);
  });

  it('the tiles and keys stay as cacheable as documented', async () => {
    expect(await cacheControl(await fetch(`${t.url}/trust/pubkey`, { headers: me }))).toEqual([200, 'public, max-age=300']);
    expect(await cacheControl(await fetch(`${t.url}/checkpoint`, { headers: me }))).toEqual([200, 'no-store']);
  });
});

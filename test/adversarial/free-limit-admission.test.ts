/**
 * Attacks on the per-client free limit (issue 29 rows 2, 3, 4 and the MCP batch): a payment
 * header lifts the limit only once it decodes and matches the route; a refused payment repeated
 * is answered from memory (no second simulation) and its repeats are limited apart; on /mcp the
 * HTTP payment header means nothing and each batch element counts; a voucher on a channel nobody
 * funded, repeated, is read on chain once. One service for the file, its
 * clock pinned (no refill), a burst of 8; each test is its own client behind the trusted proxy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Localnet } from '@solana-x402-intel/localnet';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type RunningService, startService } from '../../src/service/service.ts';
import type { PaymentRequirements } from '@x402/core/types';
import { channelOf, channelPayer, voucherHeader } from '../helpers/channel-payer.ts';
import { RAW_MCP_HEADERS } from '../helpers/mcp-client.ts';
import { officialSvmClient } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';
import { address, createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { randomBytes } from 'node:crypto';

const BURST = 8;
/** The default failed-payment burst: the test runs on defaults there. */
const FAILED_BURST = 60;

let localnet: Localnet;
let service: RunningService;
let relay: Server;
let evmRelay: Server;
let dataDir: string;
/** JSON-RPC methods the service sent to the Solana RPC, by name. */
const rpcMethods = new Map<string, number>();
/** JSON-RPC methods the service sent to the EVM RPC, by name. */
const evmMethods = new Map<string, number>();

/** Relays the service's RPC calls to the localnet, counting the methods it calls. */
function countingRelay(target: string, rpcMethods: Map<string, number>): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const calls = [JSON.parse(body.toString() || '{}')].flat() as { method?: string; params?: unknown[] }[];
      for (const c of calls) {
        if (!c.method) continue;
        rpcMethods.set(c.method, (rpcMethods.get(c.method) ?? 0) + 1);
        // Reads by account too: the test counts the reads of one payer's token account.
        if (typeof c.params?.[0] === 'string') rpcMethods.set(`${c.method}:${c.params[0]}`, (rpcMethods.get(`${c.method}:${c.params[0]}`) ?? 0) + 1);
      }
      const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(Buffer.from(await upstream.arrayBuffer()));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  const started = await startTestLocalnet();
  localnet = started.localnet;
  relay = await countingRelay(localnet.urls.rpc, rpcMethods);
  evmRelay = await countingRelay(started.upstreams.evm!.rpcUrl, evmMethods);
  dataDir = mkdtempSync(join(tmpdir(), 'admission-'));
  const limits = ['--free-rate-per-second', '1', '--free-burst', String(BURST), '--trusted-proxies', '127.0.0.1'];
  const config = loadConfig({}, ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, ...limits]);
  const pinned = new Date('2026-11-24T12:00:00Z');
  const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const evm = { ...started.upstreams.evm!, rpcUrl: urlOf(evmRelay) };
  service = await startService(config, { upstreams: { ...started.upstreams, rpcUrl: urlOf(relay), evm }, now: () => pinned });
}, 120_000);

afterAll(async () => {
  await service?.close();
  for (const server of [relay, evmRelay]) {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  }
  await localnet?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

let clients = 0;
/** A fresh client address, as the trusted proxy forwards it. */
const newClient = () => ({ 'X-Forwarded-For': `198.51.100.${++clients}` });
const EPOCH = '/v1/epoch';
const get = (path: string, headers: Record<string, string>) => fetch(`${service.url}${path}`, { headers });

/** Statuses of `n` requests sent one after another. */
async function statuses(n: number, send: () => Promise<Response>): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await send();
    await res.arrayBuffer();
    seen.push(res.status);
  }
  return seen;
}

const refusedAfterBurst = [...Array<number>(BURST).fill(402), 429, 429];

describe('a payment header lifts the free limit only when it decodes and matches the route', () => {
  it('PAYMENT-SIGNATURE: x and X-PAYMENT: x are counted like unpaid requests (row 2)', async () => {
    const me = newClient();
    expect(await statuses(BURST + 2, () => get(EPOCH, { ...me, 'PAYMENT-SIGNATURE': 'x' }))).toEqual(refusedAfterBurst);
    const other = newClient();
    expect(await statuses(BURST + 2, () => get(EPOCH, { ...other, 'X-PAYMENT': 'x' }))).toEqual(refusedAfterBurst);
    const refused = await get(EPOCH, { ...other, 'X-PAYMENT': 'x' });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await readJson(refused)).toMatchObject({ error: 'rate_limited', retryAfterSeconds: 1 });
  });

  it('a decodable payment whose terms are not the route’s, and a payment header on a free route, are counted', async () => {
    const me = newClient();
    const accepted = { scheme: 'exact', network: 'solana:devnet', amount: '1', asset: 'x', payTo: 'y', maxTimeoutSeconds: 60, extra: {} };
    const mismatched = Buffer.from(JSON.stringify({ x402Version: 2, accepted, payload: {} })).toString('base64');
    expect(await statuses(BURST + 2, () => get(EPOCH, { ...me, 'PAYMENT-SIGNATURE': mismatched }))).toEqual(refusedAfterBurst);
    const other = newClient();
    const health = await statuses(BURST + 1, () => get('/health', { ...other, 'PAYMENT-SIGNATURE': mismatched }));
    expect(health).toEqual([...Array<number>(BURST).fill(200), 429]);
  });
});

describe('a refused payment sent again and again (row 3)', () => {
  it('is checked on chain once, answered from memory after, and limited once the failed-payment burst is used', async () => {
    const me = newClient();
    const challenge = await get(EPOCH, me);
    const required = decodePaymentRequiredHeader(challenge.headers.get('payment-required')!);
    // A payer that holds nothing: validly signed, refused by verification's balance read.
    const seed = new Uint8Array(randomBytes(32));
    const unfunded = { signer: await createKeyPairSignerFromPrivateKeyBytes(seed), seed };
    const svm = officialSvmClient(unfunded, { rpcUrl: localnet.urls.rpc, stablecoinMint: localnet.stablecoinMint });
    const header = Buffer.from(JSON.stringify(await svm.createPaymentPayload(required))).toString('base64');
    // Verification's one chain read: the payer's token account (it has none).
    const [source] = await findAssociatedTokenPda({
      owner: unfunded.signer.address,
      mint: address(localnet.stablecoinMint),
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const simulations = () => rpcMethods.get(`getAccountInfo:${source}`) ?? 0;
    const before = simulations();
    const first = await get(EPOCH, { ...me, 'PAYMENT-SIGNATURE': header });
    expect(first.status).toBe(402);
    const reason = decodePaymentRequiredHeader(first.headers.get('payment-required')!).error;
    expect(reason).toMatch(/simulation/);
    expect(simulations()).toBe(before + 1);
    // The free bucket is untouched by the payment: the client still has its burst less the challenge.
    const repeats = await statuses(FAILED_BURST + 1, () => get(EPOCH, { ...me, 'PAYMENT-SIGNATURE': header }));
    expect(repeats.slice(0, FAILED_BURST - 1)).toEqual(Array<number>(FAILED_BURST - 1).fill(402));
    expect(repeats.slice(FAILED_BURST - 1)).toEqual([429, 429]);
    expect(simulations()).toBe(before + 1);
    const again = await get(EPOCH, { ...me, 'PAYMENT-SIGNATURE': header });
    expect(again.headers.get('retry-after')).toBeTruthy();
    expect(await readJson(again)).toMatchObject({ error: 'rate_limited' });
  });
});

describe('a voucher on a channel nobody funded, sent again and again', () => {
  it('is read on chain once and answered from memory after', async () => {
    const me = newClient();
    const challenge = await get(EPOCH, me);
    const { accepts } = JSON.parse(Buffer.from(challenge.headers.get('payment-required')!, 'base64').toString()) as { accepts: PaymentRequirements[] };
    const terms = accepts.find((a) => a.scheme === 'batch-settlement')!;
    // A payer with a channel config and id, and no deposit: the channel holds nothing on chain.
    const payer = await channelPayer(localnet.evm, 0n, 100_000n);
    const { config, channelId } = channelOf(payer, terms);
    const header = await voucherHeader(terms, payer.key, config, channelId, BigInt(terms.amount));
    const chainCalls = () => [...evmMethods.values()].reduce((a, b) => a + b, 0);
    const before = chainCalls();
    const first = await get(EPOCH, { ...me, 'PAYMENT-SIGNATURE': header });
    expect(first.status).toBe(402);
    expect(decodePaymentRequiredHeader(first.headers.get('payment-required')!).error).toMatch(/channel_not_found/);
    const read = chainCalls();
    expect(read).toBeGreaterThan(before);
    for (let i = 0; i < 5; i++) {
      const again = await get(EPOCH, { ...me, 'PAYMENT-SIGNATURE': header });
      expect(again.status).toBe(402);
      expect(decodePaymentRequiredHeader(again.headers.get('payment-required')!).error).toMatch(/channel_not_found/);
    }
    expect(chainCalls()).toBe(read);
  });
});

const mcpPost = (headers: Record<string, string>, body: unknown) =>
  fetch(`${service.url}/mcp`, { method: 'POST', headers: { ...RAW_MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
const toolsList = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

describe('/mcp', () => {
  it('a payment header changes nothing there: tools/list with a garbage header is counted (row 4)', async () => {
    const me = newClient();
    const seen = await statuses(BURST + 2, () => mcpPost({ ...me, 'PAYMENT-SIGNATURE': 'x' }, toolsList(1)));
    expect(seen).toEqual([...Array<number>(BURST).fill(200), 429, 429]);
  });

  it('each element of a JSON-RPC batch takes a token: a batch more than the bucket holds is refused whole', async () => {
    const me = newClient();
    const batch = (n: number) => Array.from({ length: n }, (_, i) => toolsList(i + 1));
    const first = await mcpPost(me, batch(5));
    await first.arrayBuffer();
    expect(first.status).not.toBe(429);
    // Three tokens are left: a batch of five is refused, a batch of three is not, then nothing is left.
    const second = await mcpPost(me, batch(5));
    expect(second.status).toBe(429);
    expect(await readJson(second)).toMatchObject({ error: 'rate_limited' });
    const third = await mcpPost(me, batch(3));
    await third.arrayBuffer();
    expect(third.status).not.toBe(429);
    expect((await mcpPost(me, toolsList(1))).status).toBe(429);
  });

  it('a batch of 100 costs 100 tokens: admitted on a full bucket, then the client owes the rest', async () => {
    const me = newClient();
    const big = await mcpPost(
      me,
      Array.from({ length: 100 }, (_, i) => toolsList(i + 1)),
    );
    await big.arrayBuffer();
    expect(big.status).not.toBe(429);
    const next = await mcpPost(me, toolsList(1));
    expect(next.status).toBe(429);
    // 92 tokens owed plus the one asked for, at one a second.
    expect(Number(next.headers.get('retry-after'))).toBe(100 - BURST + 1);
  });
});

import { decodePaymentRequiredHeader } from '@x402/core/http';
import { Validator } from '@seriousme/openapi-schema-validator';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG, CATALOG_BY_PATH } from '../../src/catalog/endpoints.ts';
import { formatUsd } from '../../src/catalog/format-usd.ts';
import { PARAM_RULES } from '../fixtures/param-rules.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { SPEC_PRICES } from '../fixtures/spec-prices.ts';

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const BASE = 'eip155:8453';
let t: TestService;

beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t.close();
});

const exampleUrl = (path: string, example: Readonly<Record<string, string>>) => `${t.url}${path}?${new URLSearchParams(example as Record<string, string>)}`;

describe('402 challenge', () => {
  it.each(CATALOG.map((e) => [e.path, e] as const))('%s answers 402 with both networks at the contract price', async (path, entry) => {
    const url = exampleUrl(path, entry.example);
    const res = await fetch(url);
    expect(res.status).toBe(402);
    expect(res.headers.get('access-control-expose-headers')).toContain('PAYMENT-REQUIRED');
    const header = res.headers.get('payment-required')!;
    const decoded = decodePaymentRequiredHeader(header);
    // The challenge is sent once, in the header; the body is a short error pointing at the discovery document.
    const body = await readJson(res);
    expect(body).toEqual({ error: 'payment_required', message: expect.any(String), discovery: `${t.service.url}/.well-known/x402` });
    expect(JSON.stringify(body)).not.toContain('accepts');
    expect(decoded.x402Version).toBe(2);
    expect(decoded.resource.url).toBe(url);
    // Both networks with exact, then the payment channel on Base.
    expect(decoded.accepts.map((a) => [a.scheme, a.network])).toEqual([
      ['exact', SOLANA],
      ['exact', BASE],
      ['batch-settlement', BASE],
    ]);
    const amount = String(SPEC_PRICES[path]![0]);
    for (const a of decoded.accepts) {
      expect(a).toMatchObject({ amount, maxTimeoutSeconds: 60 });
    }
    const [svm, evm, channel] = decoded.accepts;
    // feePayer is the term; recentBlockhash is the warm blockhash spliced into each challenge.
    expect(svm!.extra).toEqual({ feePayer: t.service.identity.publicKey, recentBlockhash: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/) });
    expect(svm!.payTo).toBe(t.service.terms.svm.payTo);
    expect(svm!.asset).toBe(t.localnet!.stablecoinMint);
    expect(evm!.extra).toEqual({ name: 'USD Coin', version: '2' });
    expect(evm!.asset).toBe(t.localnet!.evm.usdcAddress);
    expect(evm!.payTo).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(channel).toMatchObject({ asset: evm!.asset, payTo: evm!.payTo });
    expect(channel!.extra).toEqual({
      receiverAuthorizer: t.service.terms.channel!.receiverAuthorizer,
      withdrawDelay: 86400,
      name: 'USD Coin',
      version: '2',
      minDeposit: String(SPEC_PRICES[path]![0] * 100),
    });
  });

  it('refuses an undecodable payment with a fresh challenge naming the reason', async () => {
    const e = CATALOG[0]!;
    const res = await fetch(exampleUrl(e.path, e.example), { headers: { 'PAYMENT-SIGNATURE': 'not base64 json' } });
    expect(res.status).toBe(402);
    expect((await readJson(res)).error).toMatch(/^invalid_payload/);
  });

  it("refuses a payment whose accepted terms are not the route's", async () => {
    const e = CATALOG[0]!;
    const terms = decodePaymentRequiredHeader((await fetch(exampleUrl(e.path, e.example))).headers.get('payment-required')!).accepts[0]!;
    const payload = { x402Version: 2, accepted: { ...terms, amount: '1' }, payload: { transaction: 'AA==' } };
    const res = await fetch(exampleUrl(e.path, e.example), { headers: { 'X-PAYMENT': Buffer.from(JSON.stringify(payload)).toString('base64') } });
    expect(res.status).toBe(402);
    expect((await readJson(res)).error).toMatch(/^invalid_payment_requirements/);
  });
});

describe('parameter validation answers 400 before any challenge', () => {
  it.each(PARAM_RULES.map((r) => [`${r.path} ${r.why}`, r] as const))('%s', async (_, rule) => {
    const res = await fetch(`${t.url}${rule.path}?${rule.query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('payment-required')).toBeNull();
    const body = await readJson(res);
    expect(body).toMatchObject({ error: rule.error, param: rule.param });
    expect(typeof body.message).toBe('string');
  });
});

describe('discovery documents', () => {
  it('/.well-known/x402 follows docs/contract.md#discovery', async () => {
    const doc = await readJson(fetch(`${t.url}/.well-known/x402`));
    expect(doc).toMatchObject({
      x402Version: 2,
      url: t.url,
      protocol: 'x402',
      count: CATALOG.length,
      pagination: { limit: 100, offset: 0, total: CATALOG.length },
    });
    expect(typeof doc.provider).toBe('string');
    expect(doc.resources).toEqual(doc.items);
    expect(doc.items.map((i: { resource: string }) => new URL(i.resource).pathname)).toEqual(CATALOG.map((e) => e.path));
    for (const item of doc.items) {
      const path = new URL(item.resource).pathname;
      const price = formatUsd(CATALOG_BY_PATH.get(path)!.priceUnits);
      expect(item).toMatchObject({ type: 'http', x402Version: 2, mimeType: 'application/json', metadata: { method: 'GET', price } });
      expect(new Date(item.lastUpdated).toISOString()).toBe(item.lastUpdated);
      expect(item.accepts.map((a: { scheme: string; network: string }) => `${a.scheme} ${a.network}`)).toEqual([
        `exact ${SOLANA}`,
        `exact ${BASE}`,
        `batch-settlement ${BASE}`,
      ]);
      for (const input of item.metadata.inputs) {
        expect(['string', 'number', 'integer', 'boolean']).toContain(input.type);
        expect(typeof input.required).toBe('boolean');
        expect(input.description.length).toBeGreaterThan(0);
      }
    }
  });

  it('/openapi.json is a valid OpenAPI 3.1 document with x-x402-price on every paid 402', async () => {
    const doc = await readJson(fetch(`${t.url}/openapi.json`));
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.9');
    expect(Object.keys(doc.info['x-methodology'])).toEqual(expect.arrayContaining(['token', 'forensics', 'market', 'timing']));
    expect(doc.info['x-methodology'].token.decision.rules).toEqual({ rejectBelowSmri: 40, executeMinSmri: 70, executeMinConfidence: 0.6 });
    for (const e of CATALOG) {
      const op = doc.paths[e.path].get;
      expect(op.responses['402']['x-x402-price']).toMatchObject({ amount: e.priceUnits, decimals: 6, price: formatUsd(e.priceUnits), network: SOLANA });
      expect(op.responses['200'].content['application/json'].schema).toBeTypeOf('object');
      const required = (e.query as unknown as { required?: string[] }).required ?? [];
      for (const name of required) expect(op.parameters.find((p: { name: string }) => p.name === name)).toMatchObject({ in: 'query', required: true });
    }
  });

  it('/llms.txt and /pricing list every endpoint with its price', async () => {
    const llms = await (await fetch(`${t.url}/llms.txt`)).text();
    const pricing = await fetch(`${t.url}/pricing`);
    expect(pricing.headers.get('content-type')).toContain('text/html');
    const html = await pricing.text();
    for (const e of CATALOG) {
      expect(llms).toContain(e.path);
      expect(llms).toContain(formatUsd(e.priceUnits));
      expect(html).toContain(`<code>${e.path}</code>`);
    }
  });

  it('/facilitator/supported has the x402 SupportedResponse shape', async () => {
    const body = await readJson(fetch(`${t.url}/facilitator/supported`));
    expect(Array.isArray(body.kinds)).toBe(true);
    expect(Array.isArray(body.extensions)).toBe(true);
    expect(typeof body.signers).toBe('object');
  });

  it('/health and /uptime report status and request metrics', async () => {
    const health = await readJson(fetch(`${t.url}/health`));
    expect(health).toMatchObject({
      status: 'ok',
      version: '0.1.9',
      mode: 'embedded',
      localnet: { rpcUrl: t.localnet!.urls.rpc, geyserUrl: t.localnet!.urls.geyser, marketUrl: t.localnet!.urls.market, evmRpcUrl: t.localnet!.urls.evm },
    });
    expect(health.requests.total).toBeGreaterThan(0);
    expect(health.timing.geyser).toMatchObject({ state: expect.any(String) });
    expect(JSON.stringify(health.timing)).not.toContain(t.localnet!.urls.geyser);
    // The service runs in this process: its memory is ours.
    expect(health.process).toEqual({
      rssBytes: expect.any(Number),
      heapUsedBytes: expect.any(Number),
      heapTotalBytes: expect.any(Number),
      externalBytes: expect.any(Number),
      eventLoopDelayP99Ms: expect.any(Number),
      eventLoopWindowMs: 10_000,
    });
    expect(health.process.heapUsedBytes).toBeGreaterThan(0);
    expect(health.process.rssBytes).toBeGreaterThan(health.process.heapUsedBytes);
    expect(health.process.heapTotalBytes).toBeGreaterThanOrEqual(health.process.heapUsedBytes);
    const uptime = await readJson(fetch(`${t.url}/uptime`));
    expect(uptime.status).toBe('ok');
    expect(uptime.process).toBeUndefined();
    expect(typeof uptime.p95LatencyMs).toBe('number');
  });
});

describe('front end', () => {
  it('answers 404 JSON for unknown paths and 405 for other methods', async () => {
    const nf = await fetch(`${t.url}/v1/nothing-here`);
    expect(nf.status).toBe(404);
    expect(await readJson(nf)).toMatchObject({ error: 'not_found' });
    const na = await fetch(`${t.url}/v1/smri`, { method: 'DELETE' });
    expect(na.status).toBe(405);
    expect(na.headers.get('allow')).toContain('GET');
    expect(await readJson(na)).toMatchObject({ error: 'method_not_allowed' });
  });

  it('answers CORS preflight', async () => {
    const res = await fetch(`${t.url}/v1/smri`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://agent.example', 'Access-Control-Request-Headers': 'payment-signature' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toContain('PAYMENT-SIGNATURE');
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Service-Receipt');
  });

  it('refuses oversized headers and request targets with a 4xx and keeps serving', async () => {
    const big = await fetch(`${t.url}/health`, { headers: { 'x-filler': 'a'.repeat(20_000) } });
    expect(big.status).toBe(431);
    const long = await fetch(`${t.url}/v1/smri?mint=${'1'.repeat(9000)}`);
    expect(long.status).toBe(414);
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });

  it('survives a raw request with a 200 kB header and a garbage request line', async () => {
    const port = new URL(t.url).port;
    const send = (payload: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(payload));
        let data = '';
        socket.on('data', (d) => (data += d.toString()));
        socket.on('close', () => resolve(data));
        // The server ends the connection itself: a socket it kept open would time the test out.
        socket.on('error', () => resolve(data));
      });
    const huge = await send(`GET /health HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(200_000)}\r\n\r\n`);
    expect(huge === '' || /^HTTP\/1\.1 4\d\d/.test(huge)).toBe(true);
    const garbage = await send('BLAH\r\n\r\n');
    expect(garbage === '' || /^HTTP\/1\.1 4\d\d/.test(garbage)).toBe(true);
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });
});

/**
 * The standing fuzz suite (fast-check, seeded: FUZZ_SEED, printed with any counterexample) against
 * the real service on the localnet. Properties: hostile query strings generated from every
 * catalog schema answer 400 or 402, never 5xx; free and trust endpoints never 5xx; random and
 * mutated payment headers (both names, oversized) never answer 5xx, and nothing is charged
 * without a 200 delivered (one real payment underneath: at most one 200, charged exactly once);
 * random MCP tool arguments never give a server error; the service answers /health afterwards.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { channelOf, channelPayer, channelTerms, voucherHeader } from '../helpers/channel-payer.ts';
import { FUZZ_SEED, nestedPaymentHeaderFrom, paymentHeaderFrom, queryFor, toolArguments } from '../helpers/fuzz-arbitraries.ts';
import { RAW_MCP_HEADERS } from '../helpers/mcp-client.ts';
import { officialSvmClient } from '../helpers/official-svm-client.ts';
import { fundedPayer, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/**
 * Every property checks its numRuns cases whatever runs beside it: the time limit only stops a hung
 * run with fast-check's report (seed, cases done) before vitest's limit would, and a run it stops
 * fails (markInterruptAsFailure), never passes on fewer cases. Quiet, each property takes seconds.
 */
const RUN = { seed: FUZZ_SEED, numRuns: 40, interruptAfterTimeLimit: 100_000, markInterruptAsFailure: true } as const;
const PARAMETER_ERRORS = ['invalid_parameter', 'missing_parameter', 'repeated_parameter', 'unknown_parameter', 'invalid_transaction'];
let t: TestService;
let payer: TestPayer;

beforeAll(async () => {
  t = await startTestService();
  payer = await fundedPayer(t.localnet!.urls.rpc, 1_000_000);
}, 120_000);

afterAll(async () => {
  expect((await fetch(`${t.url}/health`)).status).toBe(200);
  await t?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${t.url}${path}`, { headers });

describe('fuzz: queries', () => {
  it.each(CATALOG.map((e) => [e.path, e] as const))(
    '%s without payment: 400 naming a parameter or 402, never 5xx',
    async (_path, entry) => {
      await fc.assert(
        fc.asyncProperty(queryFor(entry), async (query) => {
          const res = await get(`${entry.path}?${query}`);
          const body = await res.text();
          expect([400, 402, 414], body.slice(0, 200)).toContain(res.status);
          if (res.status === 400) expect(PARAMETER_ERRORS).toContain(JSON.parse(body).error);
        }),
        RUN,
      );
    },
    120_000,
  );

  it('free and trust endpoints: any query answers below 500', async () => {
    const paths = [
      '/health',
      '/uptime',
      '/ledger',
      '/trust/log',
      '/trust/proof',
      '/trust/consistency',
      '/trust/checkpoint',
      '/trust/verify',
      '/trust/pubkey',
      '/openapi.json',
      '/',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.string({ maxLength: 200 }), async (path, query) => {
        const res = await get(`${path}?${encodeURI(query)}`);
        await res.arrayBuffer();
        expect(res.status).toBeLessThan(500);
      }),
      { ...RUN, numRuns: 200 },
    );
  }, 120_000);
});

describe('fuzz: payment headers', () => {
  it('random and mutated payments never 5xx, and nothing is charged without its 200', async () => {
    const path = '/v1/epoch?rate=both';
    const challenge = await get(path);
    const required = decodePaymentRequiredHeader(challenge.headers.get('payment-required')!);
    const client = officialSvmClient(payer, { rpcUrl: t.localnet!.urls.rpc, stablecoinMint: t.localnet!.stablecoinMint });
    const valid = Buffer.from(JSON.stringify(await client.createPaymentPayload(required))).toString('base64');
    const balance = () => tokenBalance(t.localnet!.urls.rpc, payer.signer.address, t.localnet!.stablecoinMint);
    const before = await balance();
    // One payment buys one answer: every 200 is that same answer (sent again, it is given again).
    const receipts = new Set<string>();
    await fc.assert(
      fc.asyncProperty(paymentHeaderFrom(valid), fc.constantFrom('PAYMENT-SIGNATURE', 'X-PAYMENT'), async (header, name) => {
        const res = await get(path, { [name]: header });
        await res.arrayBuffer();
        expect([200, 400, 402, 409, 431]).toContain(res.status);
        if (res.status === 200) {
          expect(res.headers.get('payment-response')).toBeTruthy();
          receipts.add(res.headers.get('x-service-receipt')!);
        }
      }),
      { ...RUN, numRuns: 150 },
    );
    expect([...receipts].every(Boolean)).toBe(true);
    expect(receipts.size).toBeLessThanOrEqual(1);
    expect(before - (await balance())).toBe(BigInt(receipts.size) * 1000n);
  }, 180_000);
});

describe('fuzz: channel payments', () => {
  it('a real voucher mutated anywhere, at top level or deep in its payload: never 5xx, and every charge is one 200', async () => {
    const path = '/v1/epoch';
    const payer = await channelPayer(t.localnet!.evm, 1_000_000n, 100_000n);
    expect((await payer.pay(`${t.url}${path}`)).status).toBe(200);
    const terms = await channelTerms(`${t.url}${path}`);
    const { config, channelId } = channelOf(payer, terms);
    const valid = await voucherHeader(terms, payer.key, config, channelId, 2000n);
    const unclaimed = async () => BigInt(((await (await get('/health')).json()) as any).channels.unclaimedUnits);
    const before = await unclaimed();
    const receipts = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(paymentHeaderFrom(valid), nestedPaymentHeaderFrom(valid)), async (header) => {
        const res = await get(path, { 'PAYMENT-SIGNATURE': header });
        await res.arrayBuffer();
        expect([200, 400, 402, 409, 431]).toContain(res.status);
        if (res.status === 200) {
          expect(res.headers.get('payment-response')).toBeTruthy();
          receipts.add(res.headers.get('x-service-receipt')!);
        }
      }),
      { ...RUN, numRuns: 200 },
    );
    // Only the voucher itself (or a mutation that changes nothing it signs) can buy an answer, and only one.
    expect(receipts.size).toBeLessThanOrEqual(1);
    expect((await unclaimed()) - before).toBe(BigInt(receipts.size) * 1000n);
  }, 180_000);
});

/** The JSON-RPC message of a Streamable HTTP answer (JSON, or the first SSE data line). */
function rpcMessage(contentType: string, text: string): { error?: { code: number }; result?: unknown } {
  if (contentType.includes('application/json')) return JSON.parse(text);
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return JSON.parse(data!.slice(6));
}

describe('fuzz: MCP tool arguments', () => {
  it('any arguments to any tool: a result or a protocol error, never a server error', async () => {
    const listed = await fetch(`${t.url}/mcp`, { method: 'POST', headers: RAW_MCP_HEADERS, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    const tools = (
      rpcMessage(listed.headers.get('content-type') ?? '', await listed.text()).result as { tools: { name: string; inputSchema: { properties?: object } }[] }
    ).tools;
    const tool = fc.constantFrom(...tools).chain((x) => fc.tuple(fc.constant(x.name), toolArguments(Object.keys(x.inputSchema.properties ?? {}))));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 9, arbitrary: tool }, { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 20 }), toolArguments([])) }),
        async ([name, args]) => {
          const res = await fetch(`${t.url}/mcp`, {
            method: 'POST',
            headers: RAW_MCP_HEADERS,
            body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } }),
          });
          const text = await res.text();
          expect(res.status, text.slice(0, 200)).toBeLessThan(500);
          if (res.status === 200) expect(rpcMessage(res.headers.get('content-type') ?? '', text).error?.code).not.toBe(-32603);
        },
      ),
      { ...RUN, numRuns: 200 },
    );
  }, 180_000);
});

/**
 * A client that pays is never throttled by the free limit (issue 30): the official x402 clients
 * send every call unpaid first (the 402), then paid, and a paid call that succeeds gives back the
 * token its 402 took. One address pays 500 channel calls back to back and 200 Base `exact` calls
 * at 8 in flight, an MCP client pays its tools after fetching each PaymentRequired: all answered,
 * no 429. The same address sending only unpaid requests is then limited as before, and a client
 * alternating unpaid requests with refused payments, or with one payment sent again and again, is
 * limited too. The service's clock is pinned (no refill) and the burst is 8, so without the rule
 * the limit is hit after a few calls.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { BASE, channelPayer } from '../helpers/channel-payer.ts';
import { callTool } from '../helpers/mcp-client.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const BURST = 8;
const PRICE = 1000n;
const CHANNEL_CALLS = 500;
const EXACT_CALLS = 200;
const IN_FLIGHT = 8;
let t: TestService;

beforeAll(async () => {
  const pinned = new Date('2026-11-24T12:00:00Z');
  // No background traffic: the file pays /v1/epoch alone (slots, never the fee or tip windows).
  t = await startTestService({ now: () => pinned }, ['--free-rate-per-second', '1', '--free-burst', String(BURST), '--trusted-proxies', '127.0.0.1'], {
    txsPerSlot: 0,
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** A funded Base payer's official client choosing the `exact` option. */
async function exactBasePayer(units: bigint): Promise<x402Client> {
  const evm = t.localnet!.evm;
  const key = generateEvmKey();
  await evm.fundUsdc(evmAddressOfKey(key), units);
  const client = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE && a.scheme === 'exact')!);
  client.setSpendControls({ allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
  client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
  return client;
}

/** How many answers had each status. */
function tally(statuses: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

async function statusOf(res: Response): Promise<number> {
  await res.arrayBuffer();
  return res.status;
}

describe('a paying client and the free limit, one address', () => {
  it(`pays ${CHANNEL_CALLS} channel calls back to back with the official client: every call 200`, async () => {
    const { pay } = await channelPayer(t.localnet!.evm, PRICE * BigInt(CHANNEL_CALLS) * 2n, PRICE * BigInt(CHANNEL_CALLS + 10));
    const statuses: number[] = [];
    for (let i = 0; i < CHANNEL_CALLS; i++) statuses.push(await statusOf(await pay(`${t.url}/v1/epoch`)));
    expect(tally(statuses)).toEqual({ 200: CHANNEL_CALLS });
  }, 300_000);

  it(`pays ${EXACT_CALLS} Base exact calls at ${IN_FLIGHT} in flight with the official client: every call 200`, async () => {
    const pay = wrapFetchWithPayment(fetch, await exactBasePayer(PRICE * BigInt(EXACT_CALLS) * 2n)) as typeof fetch;
    const statuses: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < EXACT_CALLS) {
        next++;
        statuses.push(await statusOf(await pay(`${t.url}/v1/epoch`)));
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    expect(tally(statuses)).toEqual({ 200: EXACT_CALLS });
  }, 120_000);

  it('the same address sending only unpaid requests is limited as before', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < BURST + 2; i++) statuses.push(await statusOf(await fetch(`${t.url}/v1/epoch`)));
    expect(statuses).toEqual([...Array<number>(BURST).fill(402), 429, 429]);
  });
});

describe('other clients', () => {
  it('alternating unpaid requests with refused payments is limited', async () => {
    const me = { 'X-Forwarded-For': '198.51.100.50' };
    const challenge = await fetch(`${t.url}/v1/epoch`, { headers: me });
    const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required')!, 'base64').toString()) as { accepts: { network: string }[] };
    // The route's own Base terms, with an authorization that cannot be valid: matched, then refused.
    const accepted = required.accepts.find((a) => a.network === BASE)!;
    const refused = Buffer.from(JSON.stringify({ x402Version: 2, accepted, payload: { authorization: {}, signature: '0x00' } })).toString('base64');
    const unpaid: number[] = [];
    const paid: number[] = [];
    for (let i = 0; i < BURST + 2; i++) {
      unpaid.push(await statusOf(await fetch(`${t.url}/v1/epoch`, { headers: me })));
      paid.push(await statusOf(await fetch(`${t.url}/v1/epoch`, { headers: { ...me, 'PAYMENT-SIGNATURE': refused } })));
    }
    // The challenge above took the first token.
    expect(unpaid).toEqual([...Array<number>(BURST - 1).fill(402), 429, 429, 429]);
    expect(paid).toEqual(Array<number>(BURST + 2).fill(402));
  });

  it('one payment sent again and again (its kept 200 each time) gives nothing back: the unpaid requests between are limited', async () => {
    const me = { 'X-Forwarded-For': '198.51.100.70' };
    let sent = '';
    const recording: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      for (const [k, v] of Object.entries(me)) headers.set(k, v);
      sent = headers.get('payment-signature') ?? sent;
      return fetch(input, { ...init, headers });
    };
    const pay = wrapFetchWithPayment(recording, await exactBasePayer(PRICE * 10n)) as typeof fetch;
    expect(await statusOf(await pay(`${t.url}/v1/epoch`))).toBe(200);
    const unpaid: number[] = [];
    for (let i = 0; i < BURST + 2; i++) {
      unpaid.push(await statusOf(await fetch(`${t.url}/v1/epoch`, { headers: me })));
      expect(await statusOf(await fetch(`${t.url}/v1/epoch`, { headers: { ...me, 'PAYMENT-SIGNATURE': sent } }))).toBe(200);
    }
    expect(unpaid).toEqual([...Array<number>(BURST).fill(402), 429, 429]);
  });

  it.each([
    ['2026-07-28', { pin: '2026-07-28' }, '198.51.100.60'],
    ['2025-11-25 (stateless fallback)', 'legacy', '198.51.100.61'],
  ] as const)('an MCP client (protocol %s) that fetches each PaymentRequired, then pays, is not limited either', async (_era, mode, address) => {
    const client = new Client({ name: 'pace-test', version: '1.0.0' }, { versionNegotiation: { mode } });
    const headers = { 'X-Forwarded-For': address };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers } }));
    const payer = await exactBasePayer(PRICE * 100n);
    try {
      for (let i = 0; i < 2 * BURST; i++) {
        const required = await callTool(client, 'epoch', {});
        expect(required.isError, `call ${i}`).toBe(true);
        const payment = await payer.createPaymentPayload(required.structuredContent as never);
        const result = await callTool(client, 'epoch', {}, { 'x402/payment': payment });
        expect(result.isError, `call ${i}: ${result.content[0]?.text}`).toBeFalsy();
      }
    } finally {
      await client.close();
    }
  });
});

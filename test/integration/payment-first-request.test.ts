/**
 * The service answers a payment sent with the first request exactly as one sent after its 402:
 * for every scheme (a channel deposit, a channel voucher, `exact` on Base, `exact` on Solana), a
 * payload built by the OFFICIAL x402 client (`x402Client.createPaymentPayload` with the official
 * schemes) from the terms of the discovery document, sent with the route's first request (no 402
 * before it), gets the same answer as the official flow after a real 402: a 200 with the same
 * settlement response members, a receipt, the same accepted terms (a Solana option's live
 * blockhash aside). The client library's one-round-trip lane rests on this; it must not regress.
 */
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { readJson } from '../helpers/read-json.ts';
import { fundedPayer } from '../helpers/svm-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/** A paid test's limit: the shared machine runs at many times its cores at times (calls then take seconds). */
const PAID_TEST_MS = 240_000;

let t: TestService;
/** Each scheme pays its own route, so a route's first request is the payment's (no 402 before it). */
const ROUTES = { deposit: '/v1/epoch', voucher: '/v1/tipfloor', baseExact: '/v1/priority-fee', solanaExact: '/v1/lending/markets' } as const;
type Kind = keyof typeof ROUTES;

beforeAll(async () => {
  t = await startTestService({}, [], FULL_TRAFFIC);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** The route's PaymentRequired as a payer learns it from /.well-known/x402, without asking the route. */
async function discoveredTerms(path: string): Promise<PaymentRequired> {
  const doc = await readJson(fetch(`${t.url}/.well-known/x402`));
  const item = doc.items.find((i: { resource: string }) => new URL(i.resource).pathname === path);
  return {
    x402Version: 2,
    resource: { url: `${t.url}${path}`, description: item.description, mimeType: item.mimeType },
    accepts: item.accepts,
    extensions: {},
  };
}

/** The route's PaymentRequired from a real 402. */
async function challengedTerms(path: string): Promise<PaymentRequired> {
  const res = await fetch(`${t.url}${path}`);
  await res.arrayBuffer();
  expect(res.status).toBe(402);
  return JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8')) as PaymentRequired;
}

/** An official client registered for one scheme, paying any asset (the localnet's stablecoin is none it knows). */
function officialClient(pick: (a: PaymentRequirements) => boolean, register: (c: x402Client) => void): x402Client {
  const client = new x402Client((_v, accepts) => accepts.find(pick)!);
  client.setSpendControls({ maxAmountPerPayment: false, allowedAssets: true });
  register(client);
  return client;
}

interface Paid {
  readonly status: number;
  readonly settle: Record<string, unknown>;
  readonly receipt: string | null;
  readonly payload: PaymentPayload;
}

async function pay(client: x402Client, path: string, terms: PaymentRequired, channel?: BatchSettlementEvmScheme): Promise<Paid> {
  const payload = await client.createPaymentPayload(terms);
  const res = await fetch(`${t.url}${path}`, { headers: { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(payload)).toString('base64') } });
  const body = await res.text();
  expect(res.status, body).toBe(200);
  const settle = JSON.parse(Buffer.from(res.headers.get('payment-response')!, 'base64').toString('utf8'));
  // What the official transport does with a channel's answer: the scheme takes its charge.
  await channel?.schemeHooks.onPaymentResponse?.({ paymentPayload: payload, requirements: payload.accepted, settleResponse: settle });
  return { status: res.status, settle, receipt: res.headers.get('x-service-receipt'), payload };
}

/** One payer's clients per kind (a channel payer pays its deposit then its voucher). */
async function payers() {
  const evmKey = generateEvmKey();
  await t.localnet!.evm.fundUsdc(evmAddressOfKey(evmKey), 1_000_000n);
  const channelKey = generateEvmKey();
  await t.localnet!.evm.fundUsdc(evmAddressOfKey(channelKey), 1_000_000n);
  const svm = await fundedPayer(t.localnet!.urls.rpc, 1_000_000);
  const channel = new BatchSettlementEvmScheme(evmAccountFromKey(channelKey));
  return {
    channel,
    channelClient: officialClient(
      (a) => a.scheme === 'batch-settlement',
      (c) => c.register('eip155:*', channel),
    ),
    baseExact: officialClient(
      (a) => a.scheme === 'exact' && a.network.startsWith('eip155:'),
      (c) => c.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(evmKey))),
    ),
    solanaExact: officialClient(
      (a) => a.network.startsWith('solana:'),
      (c) => c.register('solana:*', new ExactSvmScheme(svm.signer, { rpcUrl: t.localnet!.urls.rpc })),
    ),
  };
}

async function payAll(termsOf: (path: string) => Promise<PaymentRequired>): Promise<Record<Kind, Paid>> {
  const p = await payers();
  // Channel calls on one route each: the deposit opens the channel, the voucher spends from it.
  const deposit = await pay(p.channelClient, ROUTES.deposit, await termsOf(ROUTES.deposit), p.channel);
  const voucher = await pay(p.channelClient, ROUTES.voucher, await termsOf(ROUTES.voucher), p.channel);
  const baseExact = await pay(p.baseExact, ROUTES.baseExact, await termsOf(ROUTES.baseExact));
  const solanaExact = await pay(p.solanaExact, ROUTES.solanaExact, await termsOf(ROUTES.solanaExact));
  return { deposit, voucher, baseExact, solanaExact };
}

/** The accepted terms without a Solana option's live fields. */
const stable = (a: PaymentRequirements) => ({ ...a, extra: Object.fromEntries(Object.entries(a.extra ?? {}).filter(([k]) => k !== 'recentBlockhash')) });

describe('a payment sent with the first request', () => {
  it(
    'is answered as one sent after a 402, for every scheme, with the official payload shapes',
    async () => {
      const first = await payAll(discoveredTerms);
      const after402 = await payAll(challengedTerms);
      for (const kind of Object.keys(ROUTES) as Kind[]) {
        const [a, b] = [first[kind], after402[kind]];
        expect(a.status, kind).toBe(b.status);
        expect(Object.keys(a.settle).sort(), kind).toEqual(Object.keys(b.settle).sort());
        expect(a.settle.success, kind).toBe(true);
        expect(a.receipt && b.receipt, kind).toBeTruthy();
        expect(stable(a.payload.accepted), kind).toEqual(stable(b.payload.accepted));
        expect(Object.keys(a.payload).sort(), kind).toEqual(Object.keys(b.payload).sort());
      }
      expect([first.deposit.payload.payload.type, first.voucher.payload.payload.type]).toEqual(['deposit', 'voucher']);
      expect([after402.deposit.payload.payload.type, after402.voucher.payload.payload.type]).toEqual(['deposit', 'voucher']);
      expect(first.voucher.settle.extra).toMatchObject({ chargedAmount: '1000' });
    },
    PAID_TEST_MS,
  );
});

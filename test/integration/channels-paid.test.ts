/**
 * Payment channels end to end: the OFFICIAL @x402/evm batch-settlement client, funded on the
 * embedded local EVM, pays hundreds of calls against the running service through one channel
 * with one deposit; every answer carries PAYMENT-RESPONSE (the scheme's payment response
 * contract) and a receipt; the admin claim puts exactly the charges on chain and sweeps them to
 * our receiver; the client's cooperative refund returns the rest.
 */
import { readFileSync } from 'node:fs';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { BASE, CHANNEL_CONTRACT, channelPayer } from '../helpers/channel-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const CALLS = 200;
const PRICE = 1000n;
const DEPOSIT = PRICE * 250n;
let t: TestService;

beforeAll(async () => {
  // No background traffic: the file pays /v1/epoch alone (slots, never the fee or tip windows).
  t = await startTestService({}, [], { txsPerSlot: 0 });
}, 90_000);
afterAll(async () => {
  await t.close();
});

async function adminPost(path: string): Promise<Response> {
  const token = readFileSync(t.service.adminTokenPath!, 'utf8').trim();
  return fetch(`${t.service.adminUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
}

describe('official batch-settlement client pays through one channel', () => {
  it('offers the channel in every paid route and in /facilitator/supported', async () => {
    const res = await fetch(`${t.url}/v1/epoch`);
    await res.arrayBuffer();
    const body = JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString()) as any;
    const channel = body.accepts.find((a: { scheme: string }) => a.scheme === 'batch-settlement');
    expect(body.accepts[0].scheme).toBe('exact');
    expect(channel).toMatchObject({ network: BASE, amount: '1000', payTo: t.service.terms.evm.payTo, asset: t.localnet!.evm.usdcAddress });
    expect(channel.extra).toMatchObject({ receiverAuthorizer: t.service.terms.channel!.receiverAuthorizer, withdrawDelay: 86400, minDeposit: '100000' });
    const supported = (await (await fetch(`${t.url}/facilitator/supported`)).json()) as any;
    expect(supported.kinds).toContainEqual(expect.objectContaining({ scheme: 'batch-settlement', network: BASE }));
  });

  it(`pays ${CALLS} calls with one deposit; claim and settle move exactly the charges; refund returns the rest`, async () => {
    const evm = t.localnet!.evm;
    const { address: payer, scheme, pay } = await channelPayer(evm, 1_000_000n, DEPOSIT);
    const reader = createEvmTokenReader({ rpcUrl: evm.url, asset: evm.usdcAddress });
    const balanceOf = async (owner: string): Promise<bigint> => {
      const state = await reader.payerState(owner, `0x${'00'.repeat(32)}`);
      if (!state.ok) throw new Error(state.message);
      return state.balance;
    };
    const payTo = t.service.terms.evm.payTo;
    const before = { payer: await balanceOf(payer), payTo: await balanceOf(payTo) };

    const transactions: string[] = [];
    for (let i = 0; i < CALLS; i++) {
      const res = await pay(`${t.url}/v1/epoch`);
      expect(res.status).toBe(200);
      const settle = decodePaymentResponseHeader(res.headers.get('payment-response')!);
      expect(settle).toMatchObject({ success: true, network: BASE, extra: { chargedAmount: '1000' } });
      expect((settle.extra as { channelState: { chargedCumulativeAmount: string } }).channelState.chargedCumulativeAmount).toBe(String(PRICE * BigInt(i + 1)));
      if (settle.transaction) transactions.push(settle.transaction);
      expect(res.headers.get('x-service-receipt')).toBeTruthy();
      await res.arrayBuffer();
    }
    expect(transactions).toHaveLength(1);
    expect(before.payer - (await balanceOf(payer))).toBe(DEPOSIT);

    const health = (await (await fetch(`${t.url}/health`)).json()) as any;
    expect(health.channels).toMatchObject({ open: 1, unclaimedUnits: String(PRICE * BigInt(CALLS)) });
    const claimed = await (await adminPost('/channels/claim')).json();
    expect(claimed).toMatchObject({ unclaimedUnits: '0', lastClaim: { channels: 1, units: String(PRICE * BigInt(CALLS)) }, lastError: null });
    expect((await balanceOf(payTo)) - before.payTo).toBe(PRICE * BigInt(CALLS));
    expect(await balanceOf(CHANNEL_CONTRACT)).toBe(DEPOSIT - PRICE * BigInt(CALLS));

    const refunded = await scheme.refund(`${t.url}/v1/epoch`);
    expect(refunded).toMatchObject({ success: true, amount: String(DEPOSIT - PRICE * BigInt(CALLS)) });
    expect(before.payer - (await balanceOf(payer))).toBe(PRICE * BigInt(CALLS));
    expect((await balanceOf(payTo)) - before.payTo).toBe(PRICE * BigInt(CALLS));
  }, 120_000);
});

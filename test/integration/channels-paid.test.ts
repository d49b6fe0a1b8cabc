/**
 * Payment channels end to end: the OFFICIAL @x402/evm batch-settlement client, funded on the
 * embedded local EVM, pays hundreds of calls against the running service through one channel
 * with one deposit; every answer carries PAYMENT-RESPONSE (the scheme's payment response
 * contract) and a receipt; the admin claim puts exactly the charges on chain and sweeps them to
 * our receiver; the client's cooperative refund returns the rest.
 */
import { readFileSync } from 'node:fs';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/evm-key-file.ts';
import { createEvmTokenReader } from '../../src/chain/evm-token-reader.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const BASE = 'eip155:8453';
const CALLS = 200;
const PRICE = 1000n;
const DEPOSIT = PRICE * 250n;
const CONTRACT = '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003';
let t: TestService;

beforeAll(async () => {
  t = await startTestService();
}, 90_000);
afterAll(async () => {
  await t.close();
});

function channelClient(key: `0x${string}`, asset: string) {
  const client = new x402Client((_version, accepts) => accepts.find((a) => a.scheme === 'batch-settlement')!);
  client.setSpendControls({ allowedAssets: [{ network: BASE, asset, maxAmountPerPayment: '1000000' }] });
  const scheme = new BatchSettlementEvmScheme(evmAccountFromKey(key), { depositStrategy: () => DEPOSIT.toString() });
  client.register('eip155:*', scheme);
  return { scheme, pay: wrapFetchWithPayment(fetch, client) as typeof fetch };
}

async function adminPost(path: string): Promise<Response> {
  const token = readFileSync(t.service.adminTokenPath!, 'utf8').trim();
  return fetch(`${t.service.adminUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
}

describe('official batch-settlement client pays through one channel', () => {
  it('offers the channel in every paid route and in /facilitator/supported', async () => {
    const res = await fetch(`${t.url}/v1/epoch`);
    const body = await res.json();
    const channel = body.accepts.find((a: { scheme: string }) => a.scheme === 'batch-settlement');
    expect(body.accepts[0].scheme).toBe('exact');
    expect(channel).toMatchObject({ network: BASE, amount: '1000', payTo: t.service.terms.evm.payTo, asset: t.localnet!.evm.usdcAddress });
    expect(channel.extra).toMatchObject({ receiverAuthorizer: t.service.terms.channel!.receiverAuthorizer, withdrawDelay: 86400, minDeposit: '100000' });
    const supported = await (await fetch(`${t.url}/facilitator/supported`)).json();
    expect(supported.kinds).toContainEqual(expect.objectContaining({ scheme: 'batch-settlement', network: BASE }));
  });

  it(`pays ${CALLS} calls with one deposit; claim and settle move exactly the charges; refund returns the rest`, async () => {
    const evm = t.localnet!.evm;
    const key = generateEvmKey();
    const payer = evmAddressOfKey(key);
    await evm.fundUsdc(payer, 1_000_000n);
    const reader = createEvmTokenReader({ rpcUrl: evm.url, asset: evm.usdcAddress });
    const balanceOf = async (owner: string): Promise<bigint> => {
      const state = await reader.payerState(owner, `0x${'00'.repeat(32)}`);
      if (!state.ok) throw new Error(state.message);
      return state.balance;
    };
    const payTo = t.service.terms.evm.payTo;
    const before = { payer: await balanceOf(payer), payTo: await balanceOf(payTo) };
    const { scheme, pay } = channelClient(key, evm.usdcAddress);

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

    const health = await (await fetch(`${t.url}/health`)).json();
    expect(health.channels).toMatchObject({ open: 1, unclaimedUnits: String(PRICE * BigInt(CALLS)) });
    const claimed = await (await adminPost('/channels/claim')).json();
    expect(claimed).toMatchObject({ unclaimedUnits: '0', lastClaim: { channels: 1, units: String(PRICE * BigInt(CALLS)) }, lastError: null });
    expect((await balanceOf(payTo)) - before.payTo).toBe(PRICE * BigInt(CALLS));
    expect(await balanceOf(CONTRACT)).toBe(DEPOSIT - PRICE * BigInt(CALLS));

    const refunded = await scheme.refund(`${t.url}/v1/epoch`);
    expect(refunded).toMatchObject({ success: true, amount: String(DEPOSIT - PRICE * BigInt(CALLS)) });
    expect(before.payer - (await balanceOf(payer))).toBe(PRICE * BigInt(CALLS));
    expect((await balanceOf(payTo)) - before.payTo).toBe(PRICE * BigInt(CALLS));
  }, 120_000);
});

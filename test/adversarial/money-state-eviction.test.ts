/**
 * Attack (issue 28 row 8): fill the service's payment records so that money state is evicted to
 * make room. Before the fix the file stores dropped the oldest record at their count bound: a
 * charged payer's retry was refused (its kept 200 gone), and an owing channel dropped from the
 * channel log restarted from the on-chain totalClaimed, so its last voucher bought a second
 * answer. Now nothing live is dropped: at the bound a new paid call gets 503 `payments_full`
 * before anything is charged. The bounds are made small with --payment-records-max and --channels-max.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createEvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { BASE, channelPayer } from '../helpers/channel-payer.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

let t: TestService;
const payerKey = generateEvmKey();

beforeAll(async () => {
  t = await startTestService({}, ['--payment-records-max', '2', '--channels-max', '1']);
  await t.localnet!.evm.fundUsdc(evmAddressOfKey(payerKey), 1_000_000n);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

async function balanceOf(owner: string): Promise<bigint> {
  const state = await createEvmTokenReader({ rpcUrl: t.localnet!.evm.url, asset: t.localnet!.evm.usdcAddress }).payerState(owner, `0x${'00'.repeat(32)}`);
  if (!state.ok) throw new Error(state.message);
  return state.balance;
}

async function exactHeader(path: string): Promise<string> {
  const client = new x402Client((_v, accepts) => accepts.find((a) => a.network === BASE && a.scheme === 'exact')!);
  client.setSpendControls({ allowedAssets: [{ network: BASE, asset: t.localnet!.evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
  client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(payerKey)));
  const res = await fetch(`${t.url}${path}`);
  const payment = await client.createPaymentPayload(decodePaymentRequiredHeader(res.headers.get('payment-required')!));
  return Buffer.from(JSON.stringify(payment)).toString('base64');
}

const paid = (path: string, header: string) => fetch(`${t.url}${path}`, { headers: { 'payment-signature': header } });

describe('payment records at their bound', () => {
  it('keep every charged payment retryable; a new payment gets 503 payments_full and is not charged', async () => {
    const payTo = t.service.terms.evm.payTo;
    const first = await exactHeader('/v1/epoch');
    const firstAnswer = await paid('/v1/epoch', first);
    expect(firstAnswer.status).toBe(200);
    const firstBody = await firstAnswer.text();
    expect((await paid('/v1/epoch?rate=both', await exactHeader('/v1/epoch?rate=both'))).status).toBe(200);

    const before = await balanceOf(payTo);
    const third = await paid('/v1/epoch', await exactHeader('/v1/epoch'));
    expect(third.status).toBe(503);
    expect((await readJson(third)).error).toBe('payments_full');
    expect(await balanceOf(payTo)).toBe(before);

    // The first payer's retry still finds its kept 200: nothing was dropped to make room.
    const retry = await paid('/v1/epoch', first);
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe(firstBody);
  });

  it('never drop an owing channel: a second channel gets 503, the first one cannot be spent again', async () => {
    const evm = t.localnet!.evm;
    const a = await channelPayer(evm, 1_000_000n, 100_000n);
    expect((await a.pay(`${t.url}/v1/epoch`)).status).toBe(200);
    expect((await a.pay(`${t.url}/v1/epoch`)).status).toBe(200);
    const spent = a.lastPayment!;

    const b = await channelPayer(evm, 1_000_000n, 100_000n);
    const refused = await b.pay(`${t.url}/v1/epoch`);
    expect(refused.status).toBe(503);
    expect((await readJson(refused)).error).toBe('payments_full');

    // A's last voucher, sent again for another resource: it buys nothing more.
    const again = await paid('/v1/epoch?rate=both', spent);
    expect(again.status).toBe(402);
  });
});

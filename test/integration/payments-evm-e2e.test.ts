/**
 * Base payments end to end: the official client (@x402/fetch + @x402/evm) pays /v1/epoch on the
 * eip155:8453 option against the running service and its local EVM; the payTo balance rises by
 * exactly the price, the 200 carries PAYMENT-RESPONSE and a receipt naming the Base network, and
 * the same authorization sent again gets that first answer again (no second charge), and sent for
 * another request is refused.
 */
import { decodePaymentResponseHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createEvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const BASE = 'eip155:8453';
let t: TestService;

beforeAll(async () => {
  t = await startTestService();
}, 90_000);
afterAll(async () => {
  await t.close();
});

describe('official client pays on Base', () => {
  it('settles exactly the price, answers with PAYMENT-RESPONSE and a receipt, gives the same answer to the same payment again, and refuses it for another request', async () => {
    const evm = t.localnet!.evm;
    const key = generateEvmKey();
    await evm.fundUsdc(evmAddressOfKey(key), 1_000_000n);
    const client = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE)!);
    client.setSpendControls({ allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
    client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
    let sentPayment: string | null = null;
    const recordingFetch: typeof fetch = async (input, init) => {
      const header = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('payment-signature');
      if (header) sentPayment = header;
      return fetch(input, init);
    };
    const payFetch = wrapFetchWithPayment(recordingFetch, client) as typeof fetch;
    const reader = createEvmTokenReader({ rpcUrl: evm.url, asset: evm.usdcAddress });
    const balanceOf = async (owner: string): Promise<bigint> => {
      const state = await reader.payerState(owner, `0x${'00'.repeat(32)}`);
      if (!state.ok) throw new Error(state.message);
      return state.balance;
    };
    const payTo = t.service.terms.evm.payTo;
    const before = await balanceOf(payTo);

    const res = await payFetch(`${t.url}/v1/epoch`);
    expect(res.status).toBe(200);
    const settle = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settle).toMatchObject({ success: true, network: BASE });
    expect(settle.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = JSON.parse(Buffer.from(res.headers.get('x-service-receipt')!, 'base64').toString());
    expect(receipt.network).toBe(BASE);
    expect((await balanceOf(payTo)) - before).toBe(1000n);

    expect(sentPayment).not.toBeNull();
    const again = await fetch(`${t.url}/v1/epoch`, { headers: { 'PAYMENT-SIGNATURE': sentPayment! } });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-service-receipt')).toBe(res.headers.get('x-service-receipt'));
    const other = await fetch(`${t.url}/v1/epoch?rate=alt`, { headers: { 'PAYMENT-SIGNATURE': sentPayment! } });
    expect(other.status).toBe(402);
    expect((await balanceOf(payTo)) - before).toBe(1000n);
  });
});

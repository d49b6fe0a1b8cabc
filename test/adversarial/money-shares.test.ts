/**
 * Money state one payer can fill (docs/security.md#money-state-no-payer-can-fill): a payer who
 * simply pays holds a settlement record (and its kept 200) for every call, for the record's
 * lifetime; at the store's bound every other payer got 503 `payments_full`. Now each payer and
 * each client address holds at most its share: one paying address fills its share and is refused
 * (nothing charged) while another payer, from another address, keeps paying; one address with two
 * payers is held to the address's share. Exact on Base and on Solana, through the official
 * clients. The shares are made small; the service sits behind a trusted proxy so each payer's
 * address is its own.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, type EvmHexKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createEvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { BASE } from '../helpers/channel-payer.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { fundedPayer, tokenBalance } from '../helpers/svm-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const PER_PAYER = 3;
const PER_CLIENT = 5;
let t: TestService;
beforeAll(async () => {
  const shares = ['--payment-records-per-payer', String(PER_PAYER), '--payment-records-per-client', String(PER_CLIENT)];
  t = await startTestService({}, ['--trusted-proxies', '127.0.0.1', ...shares]);
}, 120_000);
afterAll(async () => t?.close());

async function baseBalance(owner: string): Promise<bigint> {
  const state = await createEvmTokenReader({ rpcUrl: t.localnet!.evm.url, asset: t.localnet!.evm.usdcAddress }).payerState(owner, `0x${'00'.repeat(32)}`);
  if (!state.ok) throw new Error(state.message);
  return state.balance;
}

/** A funded Base payer whose every call is a fresh `exact` payment sent from client address `ip`. */
async function basePayer(ip: string) {
  const key: EvmHexKey = generateEvmKey();
  await t.localnet!.evm.fundUsdc(evmAddressOfKey(key), 1_000_000n);
  const client = new x402Client((_v, accepts) => accepts.find((a) => a.network === BASE && a.scheme === 'exact')!);
  client.setSpendControls({ allowedAssets: [{ network: BASE, asset: t.localnet!.evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
  client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
  const headers = { 'X-Forwarded-For': ip };
  return {
    address: evmAddressOfKey(key),
    /** One paid call: its status and error code (none for a 200). */
    async pay(path = '/v1/epoch'): Promise<[number, string | null, string | null]> {
      const challenge = await fetch(`${t.url}${path}`, { headers });
      const payment = await client.createPaymentPayload(decodePaymentRequiredHeader(challenge.headers.get('payment-required')!));
      const res = await fetch(`${t.url}${path}`, { headers: { ...headers, 'payment-signature': Buffer.from(JSON.stringify(payment)).toString('base64') } });
      if (res.status === 200) {
        await res.arrayBuffer();
        return [200, null, null];
      }
      const body = await readJson(res);
      return [res.status, body.error, body.share ?? null];
    },
  };
}

describe('shares of the payment records', () => {
  it('one paying address fills its payer share and is refused, charged nothing, while another payer keeps paying', async () => {
    const a = await basePayer('10.45.0.1');
    const b = await basePayer('10.45.0.2');
    const seen = [];
    for (let i = 0; i < PER_PAYER; i++) seen.push(await a.pay());
    expect(seen).toEqual(Array.from({ length: PER_PAYER }, () => [200, null, null]));
    const held = await baseBalance(a.address);
    // Before: 200, and every new payment of A took one more of the store's records until none was left for anyone.
    expect(await a.pay()).toEqual([503, 'payments_full', 'payer']);
    expect(await a.pay('/v1/tipfloor')).toEqual([503, 'payments_full', 'payer']);
    expect(await baseBalance(a.address)).toBe(held);
    for (let i = 0; i < PER_PAYER; i++) expect(await b.pay()).toEqual([200, null, null]);
  }, 120_000);

  it('one address with two payers is held to the address’s share; another address pays on', async () => {
    const c1 = await basePayer('10.45.1.1');
    const c2 = await basePayer('10.45.1.1');
    for (let i = 0; i < PER_PAYER; i++) expect(await c1.pay()).toEqual([200, null, null]);
    for (let i = 0; i < PER_CLIENT - PER_PAYER; i++) expect(await c2.pay()).toEqual([200, null, null]);
    const held = await baseBalance(c2.address);
    // Before: 200: a second payer from the same address filled the store on.
    expect(await c2.pay()).toEqual([503, 'payments_full', 'client']);
    expect(await baseBalance(c2.address)).toBe(held);
    const d = await basePayer('10.45.1.2');
    expect(await d.pay()).toEqual([200, null, null]);
  }, 120_000);

  it('holds on Solana too: the payer a transaction names is the payer its records count', async () => {
    const rpcUrl = t.localnet!.urls.rpc;
    const mint = t.localnet!.stablecoinMint;
    const payer = await fundedPayer(rpcUrl, 1_000_000);
    const from =
      (ip: string): typeof fetch =>
      (input, init) => {
        const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
        headers.set('X-Forwarded-For', ip);
        return fetch(input, { ...init, headers });
      };
    const pay = officialSvmFetch(payer, { rpcUrl, stablecoinMint: mint }, from('10.45.2.1'));
    for (let i = 0; i < PER_PAYER; i++) {
      const res = await pay(`${t.url}/v1/epoch`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    const held = await tokenBalance(rpcUrl, payer.signer.address, mint);
    const refused = await pay(`${t.url}/v1/epoch`);
    expect([refused.status, (await readJson(refused)).share]).toEqual([503, 'payer']);
    expect(await tokenBalance(rpcUrl, payer.signer.address, mint)).toBe(held);
    // The same payer's money from another address is still this payer's share.
    const elsewhere = await officialSvmFetch(payer, { rpcUrl, stablecoinMint: mint }, from('10.45.2.2'))(`${t.url}/v1/epoch`);
    expect(elsewhere.status).toBe(503);
  }, 120_000);
});

/**
 * Attack: one Base payer whose USDC covers one call signs many `exact` payments (EIP-3009
 * authorizations cost it nothing) and sends them all at once. Each passes verification alone (each
 * balance read sees the whole balance), and each gas estimate runs before the first transfer is
 * mined, so before the defence our relayer sent every one of them: one landed and the rest
 * reverted on chain, each at our relayer's gas. Repeated, that drains the relayer's ETH at no cost
 * to the payer. Now the payer's settlements in flight never add up to more than the balance its
 * verification read: the racing ones are refused (`payer_busy`) without a transaction.
 *
 * The race is made certain, not likely: an RPC proxy holds the first transfer's send (a node that
 * has not mined it yet, as on Base for up to a block), and the others are answered meanwhile.
 * Before the defence they were estimated and queued behind the held send instead (the count of
 * estimates says so and the test fails at once), then all sent when it was released.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { type HeldSendService, headBlock, minedSince, raceWhileHeld, startHeldSendService } from '../helpers/held-send-service.ts';
import { readJson } from '../helpers/read-json.ts';

const BASE = 'eip155:8453';
const PATH = '/v1/epoch';
const RACERS = 6;

let t: HeldSendService;

beforeAll(async () => {
  t = await startHeldSendService((localnet) => localnet.evm.usdcAddress);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

/** A new payer: its address, the price of one call, and its payments (`count` signed before any is sent). */
async function newPayer(): Promise<{ payer: string; price: bigint; sign(count: number): Promise<string[]> }> {
  const key = generateEvmKey();
  const client = new x402Client((_v, accepts) => accepts.find((a) => a.network === BASE && a.scheme === 'exact')!);
  client.setSpendControls({ allowedAssets: [{ network: BASE, asset: t.localnet.evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
  client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
  const required = decodePaymentRequiredHeader((await fetch(`${t.service.url}${PATH}`)).headers.get('payment-required')!);
  const price = BigInt(required.accepts.find((a) => a.network === BASE && a.scheme === 'exact')!.amount);
  const sign = async (count: number) => {
    const headers: string[] = [];
    for (let i = 0; i < count; i++) headers.push(Buffer.from(JSON.stringify(await client.createPaymentPayload(required))).toString('base64'));
    return headers;
  };
  return { payer: evmAddressOfKey(key), price, sign };
}

const pay = (header: string) => fetch(`${t.service.url}${PATH}`, { headers: { 'payment-signature': header } });

describe('Base payments racing from one payer whose balance covers one', () => {
  it('send one transaction: one call served, the others refused before any gas is spent', async () => {
    const { payer, price, sign } = await newPayer();
    const headers = await sign(RACERS);
    await t.localnet.evm.fundUsdc(payer, price);
    const before = await headBlock(t.localnet);
    // The others, answered while the first transfer is unmined: refused, or (before the defence)
    // estimated against the balance the first has not spent yet and queued to be sent.
    const { outcome, answers } = await raceWhileHeld(t.proxy, () =>
      headers.map((h) => pay(h).then(async (r) => ({ status: r.status, body: await readJson(r) }))),
    );
    expect(outcome).toBe('the others answered');
    // The held transfer's own preparation only (viem may ask `eth_fillTransaction` before `eth_estimateGas`).
    expect(t.proxy.estimatesWhileHeld()).toBeLessThanOrEqual(2);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const refused = answers.filter((a) => a.status === 402);
    expect(refused).toHaveLength(RACERS - 1);
    for (const { body } of refused) expect(body.error).toMatch(/^payer_busy/);
    expect(await minedSince(t.localnet, before)).toEqual({ sent: 1, reverted: 0 });
    // The service stays healthy, and the payer, funded again, is served.
    await t.localnet.evm.fundUsdc(payer, price);
    const [again] = await sign(1);
    expect((await pay(again!)).status).toBe(200);
  });
});

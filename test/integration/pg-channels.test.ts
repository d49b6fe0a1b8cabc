/**
 * Payment channels on two real service instances sharing one database and one localnet (the
 * same identity, receiver and receiver authorizer, as one deployment runs them): the official
 * client pays one channel on both in turn; one voucher sent to both at the same moment is charged
 * once (the other instance answers busy or the stored 200); one claim puts exactly the charges on
 * chain.
 */
import { readFileSync } from 'node:fs';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchSettlementChain } from '../helpers/batch-settlement-chain.ts';
import { channelOf, channelPayer, channelTerms, voucherHeader } from '../helpers/channel-payer.ts';
import { type ChannelInstances, startChannelInstances } from '../helpers/channel-instances.ts';

const PRICE = 1000n;
let group: ChannelInstances;
let localnet: ChannelInstances['localnet'];
let services: ChannelInstances['services'];

beforeAll(async () => {
  group = await startChannelInstances('pg-channels');
  ({ localnet, services } = group);
}, 180_000);
afterAll(async () => {
  await group?.close();
});

const charged = (res: Response): string =>
  (decodePaymentResponseHeader(res.headers.get('payment-response')!).extra as any).channelState.chargedCumulativeAmount;

describe('one channel served by two instances on one database', () => {
  it('the official client pays on both in turn, one charge after the other; a voucher sent to both at once is charged once; one claim moves exactly the charges', async () => {
    const [a, b] = services.map((s) => s.url);
    const terms = await channelTerms(`${a}/v1/epoch`);
    expect(terms).toEqual(await channelTerms(`${b}/v1/epoch`));
    const payer = await channelPayer(localnet.evm, 1_000_000n, 100n * PRICE);
    for (let i = 0; i < 6; i++) {
      const res = await payer.pay(`${i % 2 === 0 ? a : b}/v1/epoch`);
      expect(res.status).toBe(200);
      expect(charged(res)).toBe(String(BigInt(i + 1) * PRICE));
    }

    const { config, channelId } = channelOf(payer, terms);
    let total = 6n;
    for (let round = 0; round < 5; round++) {
      const header = await voucherHeader(terms, payer.key, config, channelId, (total + 1n) * PRICE);
      const replies = await Promise.all([a, b].map((url) => fetch(`${url}/v1/epoch`, { headers: { 'PAYMENT-SIGNATURE': header } })));
      const bodies = await Promise.all(replies.map((r) => r.json() as Promise<any>));
      expect(replies.some((r) => r.status === 200)).toBe(true);
      // Two 200s are one answer: the second is the stored 200 of the first, its receipt included.
      expect(new Set(replies.filter((r) => r.status === 200).map((r) => r.headers.get('x-service-receipt'))).size).toBe(1);
      for (const [i, r] of replies.entries()) {
        if (r.status === 200) expect(charged(r)).toBe(String((total + 1n) * PRICE));
        else
          expect([r.status, bodies[i].error]).toEqual([402, expect.stringMatching(/^invalid_batch_settlement_evm_(channel_busy|cumulative_amount_mismatch)/)]);
      }
      total++;
    }

    // One instance at a time claims: the one holding the claim lease, which its own looks (every
    // 5 s) renew. Which one took it depends on when each looked first, so the claim is asked of
    // both: the holder claims, the other leaves it.
    const claims: any[] = [];
    for (const s of services) {
      const token = readFileSync(s.adminTokenPath!, 'utf8').trim();
      claims.push(await (await fetch(`${s.adminUrl}/channels/claim`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).json());
    }
    expect(claims.map((c) => c.lastError)).toEqual([null, null]);
    expect(claims.map((c) => c.lastClaim).filter((c) => c !== null)).toEqual([expect.objectContaining({ channels: 1, units: String(total * PRICE) })]);
    expect((await new BatchSettlementChain(localnet.evm).channel(channelId as `0x${string}`)).totalClaimed).toBe(total * PRICE);
  }, 120_000);
});

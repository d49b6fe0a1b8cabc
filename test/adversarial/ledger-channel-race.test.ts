/**
 * Attack (issue 28 row 9, first half): two instances on one PostgreSQL race one channel with the
 * same voucher. Before the fix each instance appended the ledger entry (with the receipt) before
 * storing the charge, so the loser, refused `channel_busy` for a call it never charged, left a
 * ledger entry behind. Now the charge takes the channel's revision first: one entry per charge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgClient, type PgClient } from '../../src/postgres/pg-client.ts';
import { channelOf, channelPayer, channelTerms, voucherHeader } from '../helpers/channel-payer.ts';
import { type ChannelInstances, startChannelInstances } from '../helpers/channel-instances.ts';

const PRICE = 1000n;
const ROUNDS = 8;
let group: ChannelInstances;
let localnet: ChannelInstances['localnet'];
let services: ChannelInstances['services'];
let client: PgClient;
beforeAll(async () => {
  group = await startChannelInstances('adversarial-ledger-race');
  ({ localnet, services } = group);
  client = createPgClient({ url: group.db.url });
}, 180_000);
afterAll(async () => {
  await client?.close();
  await group?.close();
});

const paymentEntries = async (): Promise<number> =>
  Number((await client.query<{ n: string }>(`select count(*) as n from ledger_entries where line like '%"kind":"payment"%'`, []))[0]!.n);

describe('one voucher raced on two instances', () => {
  it('leaves exactly one ledger entry per charge: none for the instance that lost the channel', async () => {
    const [a, b] = services.map((s) => s.url);
    const terms = await channelTerms(`${a}/v1/epoch`);
    const payer = await channelPayer(localnet.evm, 1_000_000n, 100n * PRICE);
    expect((await payer.pay(`${a}/v1/epoch`)).status).toBe(200);
    const { config, channelId } = channelOf(payer, terms);
    let charges = 1;
    for (let round = 0; round < ROUNDS; round++) {
      const header = await voucherHeader(terms, payer.key, config, channelId, BigInt(charges + 1) * PRICE);
      const replies = await Promise.all([a, b].map((url) => fetch(`${url}/v1/epoch`, { headers: { 'PAYMENT-SIGNATURE': header } })));
      await Promise.all(replies.map((r) => r.arrayBuffer()));
      expect(replies.some((r) => r.status === 200)).toBe(true);
      charges++;
    }
    expect(await paymentEntries()).toBe(charges);
  }, 120_000);
});

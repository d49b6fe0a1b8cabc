/**
 * One channel whose claim reverts must not hold every other channel's claim hostage (issue 28
 * row 7), against the running service: a payer pays with the official client, then takes its
 * whole deposit back by a timed withdrawal that finishes before our claimer looks (the watch is
 * set to its slowest, so the mirror still shows the old balance), which leaves our voucher over
 * an empty channel. The claim batch holding it and an honest payer's channel is bisected: the
 * honest channel is claimed and swept, the emptied one is quarantined, shown in /health, and
 * takes no more calls. The chain's clock is moved with the local EVM's own method.
 */
import { readFileSync } from 'node:fs';
import type { PaymentRequirements } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchSettlementChain } from '../helpers/batch-settlement-chain.ts';
import { type ChannelPayer, channelOf, channelPayer, channelTerms, refusalOf, NO_AUTOMATIC_CLAIM } from '../helpers/channel-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const PRICE = 1000n;
const DELAY_SECONDS = 900;
// The slowest watch the delay allows, and no automatic claim: only the admin claim below claims.
const SLOW_WATCH = ['--channel-withdraw-delay', String(DELAY_SECONDS), '--channel-watch-seconds', String(DELAY_SECONDS / 3)];
let t: TestService;
let terms: PaymentRequirements;

beforeAll(async () => {
  // No background traffic: the file pays /v1/epoch alone (slots, never the fee or tip windows).
  t = await startTestService({}, [...SLOW_WATCH, ...NO_AUTOMATIC_CLAIM], { txsPerSlot: 0 });
  terms = await channelTerms(`${t.url}/v1/epoch`);
}, 120_000);
afterAll(async () => {
  await t.close();
});

async function pays(payer: ChannelPayer, calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const res = await payer.pay(`${t.url}/v1/epoch`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
}

async function adminClaim(): Promise<any> {
  const token = readFileSync(t.service.adminTokenPath!, 'utf8').trim();
  const res = await fetch(`${t.service.adminUrl}/channels/claim`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  return res.json();
}

describe('a claim batch with one channel whose claim reverts', () => {
  it('row 7: claims every other channel, quarantines the one at fault and serves it no more', async () => {
    const evm = t.localnet!.evm;
    const chain = new BatchSettlementChain(evm);
    const honest = await channelPayer(evm, 1_000_000n, 50n * PRICE);
    const leaver = await channelPayer(evm, 1_000_000n, 50n * PRICE);
    await pays(honest, 2);
    await pays(leaver, 3);
    const h = channelOf(honest, terms);
    const l = channelOf(leaver, terms);

    // The leaver takes its whole deposit back before we claim: our voucher of 3 calls is now over an empty channel.
    await evm.fundEth(leaver.address, 10n ** 17n);
    await chain.send(leaver.key, 'initiateWithdraw', [l.config, 50n * PRICE]);
    const { initiatedAt } = await chain.pendingWithdrawal(l.channelId);
    await chain.setNextBlockTimestamp(initiatedAt + DELAY_SECONDS);
    await chain.send(leaver.key, 'finalizeWithdraw', [l.config]);
    expect(await chain.channel(l.channelId)).toEqual({ balance: 0n, totalClaimed: 0n });

    const first = await adminClaim();
    expect((await chain.channel(h.channelId)).totalClaimed).toBe(2n * PRICE);
    expect(first).toMatchObject({
      unclaimedUnits: String(3n * PRICE),
      lastClaim: { channels: 1, units: String(2n * PRICE) },
      lastSweep: { units: String(2n * PRICE) },
    });
    expect(first.quarantined).toMatchObject({ count: 1, channels: [{ channelId: l.channelId, unclaimedUnits: String(3n * PRICE) }] });
    expect(JSON.stringify(first)).not.toMatch(/https?:\/\//);

    const health = (await (await fetch(`${t.url}/health`)).json()) as any;
    expect(health.channels.quarantined).toMatchObject({ count: 1, channels: [{ channelId: l.channelId }] });

    // The quarantined channel takes no more calls; the honest one pays on; the next claim does not revert on the leaver again.
    const refused = await leaver.pay(`${t.url}/v1/epoch`);
    expect(refused.status).toBe(402);
    expect((await refusalOf(refused)).error).toMatch(/^invalid_batch_settlement_evm_channel_quarantined/);
    await pays(honest, 1);
    const second = await adminClaim();
    expect(second).toMatchObject({ lastClaim: { channels: 1, units: String(PRICE) }, lastError: null });
    expect((await chain.channel(h.channelId)).totalClaimed).toBe(3n * PRICE);
  }, 120_000);
});

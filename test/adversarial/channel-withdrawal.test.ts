/**
 * A payer who starts a timed withdrawal and keeps paying with vouchers (issue 28 row 7's other
 * half, against the running service): every voucher accepted while the withdrawal is pending is
 * an answer whose charge the finished withdrawal may leave unclaimable, and a claim batch that
 * reverts on it. Vouchers are refused (402 `..._withdrawal_pending`) once the withdrawal shows in
 * our mirror of the channel: seen by the claimer's watch of an owing channel, or read again by
 * the voucher itself when the mirror is older than its bound (here 1 s, the watch interval).
 */
import { readFileSync } from 'node:fs';
import type { PaymentRequirements } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BatchSettlementChain } from '../helpers/batch-settlement-chain.ts';
import { type ChannelPayer, channelOf, channelPayer, channelTerms, refusalOf, NO_AUTOMATIC_CLAIM } from '../helpers/channel-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const PRICE = 1000n;
const WATCH_SECONDS = 1;
let t: TestService;
let terms: PaymentRequirements;

beforeAll(async () => {
  // No background traffic: the file pays /v1/epoch alone (slots, never the fee or tip windows).
  t = await startTestService({}, ['--channel-withdraw-delay', '900', '--channel-watch-seconds', String(WATCH_SECONDS), ...NO_AUTOMATIC_CLAIM], {
    txsPerSlot: 0,
  });
  terms = await channelTerms(`${t.url}/v1/epoch`);
}, 120_000);
afterAll(async () => {
  await t.close();
});

const health = async (): Promise<any> => ((await (await fetch(`${t.url}/health`)).json()) as any).channels;

/** Pays `calls` calls; resolves to when the last 200 arrived (ms). */
async function pays(payer: ChannelPayer, calls: number): Promise<number> {
  for (let i = 0; i < calls; i++) {
    const res = await payer.pay(`${t.url}/v1/epoch`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
  return Date.now();
}

async function startsWithdrawal(payer: ChannelPayer): Promise<void> {
  const evm = t.localnet!.evm;
  const { config } = channelOf(payer, terms);
  await evm.fundEth(payer.address, 10n ** 17n);
  await new BatchSettlementChain(evm).send(payer.key, 'initiateWithdraw', [config, 10n * PRICE]);
}

async function expectWithdrawalRefusal(payer: ChannelPayer): Promise<void> {
  const before = (await health()).unclaimedUnits;
  const res = await payer.pay(`${t.url}/v1/epoch`);
  expect(res.status).toBe(402);
  expect((await refusalOf(res)).error).toMatch(/^invalid_batch_settlement_evm_withdrawal_pending/);
  expect((await health()).unclaimedUnits).toBe(before);
}

describe('vouchers while the payer withdraws', () => {
  it('row 7: an owing channel whose withdrawal the claimer has seen takes no more vouchers', async () => {
    const payer = await channelPayer(t.localnet!.evm, 1_000_000n, 50n * PRICE);
    await pays(payer, 2);
    await startsWithdrawal(payer);
    await vi.waitUntil(async () => (await health()).withdrawalsPending >= 1, { timeout: 30_000, interval: 100 });
    // Seeing the withdrawal, the claimer claims what the channel owes (it must, before the delay
    // ends): wait for that claim, so the unclaimed figure holds still while the refusal is checked
    // (read during the claim, it fell from 2000 to 0 around the refused voucher).
    await vi.waitUntil(async () => (await health()).unclaimedUnits === '0', { timeout: 30_000, interval: 100 });
    await expectWithdrawalRefusal(payer);
  }, 60_000);

  it('row 7: a channel nobody watches (all claimed) is read again by the voucher once its mirror is past the bound', async () => {
    const payer = await channelPayer(t.localnet!.evm, 1_000_000n, 50n * PRICE);
    const token = readFileSync(t.service.adminTokenPath!, 'utf8').trim();
    const lastAnswer = await pays(payer, 2);
    // Claimed: the channel owes nothing, so the claimer's watch leaves it alone.
    await fetch(`${t.service.adminUrl}/channels/claim`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const pendingBefore = (await health()).withdrawalsPending;
    await startsWithdrawal(payer);
    // The condition under test is the mirror's stated bound: past it, the voucher must see the chain.
    await vi.waitUntil(() => Date.now() - lastAnswer > WATCH_SECONDS * 1000, { timeout: 10_000, interval: 50 });
    await expectWithdrawalRefusal(payer);
    // What the voucher read is kept: /health shows the withdrawal.
    expect((await health()).withdrawalsPending).toBe(pendingBefore + 1);
  }, 60_000);
});

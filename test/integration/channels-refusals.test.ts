/**
 * What a payment channel refuses, against the running service: a voucher replayed for another
 * request, a lower voucher, a voucher for another channel, a forged signature and a voucher over
 * the channel's balance; concurrent copies of one voucher are served once and charged once; and a
 * payer's timed withdrawal is noticed and claimed against before its delay ends, so it cannot take
 * what we earned. The chain's clock is moved with the local EVM's own method, last.
 */
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { BatchSettlementChain } from '../helpers/batch-settlement-chain.ts';
import { type ChannelPayer, channelOf, channelPayer, channelTerms, refusalOf, voucherHeader, NO_AUTOMATIC_CLAIM } from '../helpers/channel-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const PRICE = 1000n;
let t: TestService;
let terms: PaymentRequirements;
let a: ChannelPayer;

beforeAll(async () => {
  t = await startTestService({}, ['--channel-withdraw-delay', '900', '--channel-watch-seconds', '1', ...NO_AUTOMATIC_CLAIM]);
  terms = await channelTerms(`${t.url}/v1/epoch`);
  a = await channelPayer(t.localnet!.evm, 1_000_000n, 50n * PRICE);
  for (let i = 0; i < 3; i++) expect((await a.pay(`${t.url}/v1/epoch`)).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await t.close();
});

const send = (path: string, header: string) => fetch(`${t.url}${path}`, { headers: { 'PAYMENT-SIGNATURE': header } });
const unclaimed = async (): Promise<string> => ((await (await fetch(`${t.url}/health`)).json()) as any).channels.unclaimedUnits;

describe('a channel refuses what it must', () => {
  it('serves the identical voucher again without a second charge, and refuses it for another request with the corrective 402', async () => {
    const first = await send('/v1/epoch', a.lastPayment!);
    expect(first.status).toBe(200);
    expect(await unclaimed()).toBe(String(3n * PRICE));
    const other = await send('/v1/epoch?rate=alt', a.lastPayment!);
    expect(other.status).toBe(402);
    const body = await refusalOf(other);
    expect(body.error).toBe('invalid_batch_settlement_evm_cumulative_amount_mismatch');
    const extra = body.accepts.find((o) => o.scheme === 'batch-settlement')!.extra as any;
    expect(extra.channelState.chargedCumulativeAmount).toBe(String(3n * PRICE));
    expect(extra.voucherState.signedMaxClaimable).toBe(String(3n * PRICE));
    expect(await unclaimed()).toBe(String(3n * PRICE));
  });

  it('refuses a lower voucher, another channel, a forged signature and a voucher over the balance', async () => {
    const { config, channelId } = channelOf(a, terms);
    const lower = await send('/v1/epoch', await voucherHeader(terms, a.key, config, channelId, 2n * PRICE));
    expect((await refusalOf(lower)).error).toBe('invalid_batch_settlement_evm_cumulative_amount_mismatch');
    const otherId = channelOf(await channelPayer(t.localnet!.evm, 0n, PRICE), terms).channelId;
    const elsewhere = await send('/v1/epoch', await voucherHeader(terms, a.key, config, otherId, PRICE));
    expect((await refusalOf(elsewhere)).error).toMatch(/^invalid_batch_settlement_evm_(channel_not_found|channel_id_mismatch)/);
    const forged = await send('/v1/epoch', await voucherHeader(terms, generateEvmKey(), config, channelId, 4n * PRICE));
    expect((await refusalOf(forged)).error).toMatch(/^invalid_batch_settlement_evm_voucher_signature/);

    const small = await channelPayer(t.localnet!.evm, 1_000_000n, 2n * PRICE);
    for (let i = 0; i < 2; i++) expect((await small.pay(`${t.url}/v1/epoch`)).status).toBe(200);
    const s = channelOf(small, terms);
    const over = await send('/v1/epoch', await voucherHeader(terms, small.key, s.config, s.channelId, 3n * PRICE));
    expect((await refusalOf(over)).error).toMatch(/^invalid_batch_settlement_evm_cumulative_exceeds_balance/);
    expect(await unclaimed()).toBe(String(5n * PRICE));
  });

  it('serializes concurrent copies of one voucher: one answer, one receipt, one charge', async () => {
    const { config, channelId } = channelOf(a, terms);
    const header = await voucherHeader(terms, a.key, config, channelId, 4n * PRICE);
    const replies = await Promise.all(Array.from({ length: 6 }, () => send('/v1/epoch', header)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(replies.map((r) => r.headers.get('x-service-receipt'))).size).toBe(1);
    const settle = decodePaymentResponseHeader(replies[0]!.headers.get('payment-response')!);
    expect((settle.extra as any).channelState.chargedCumulativeAmount).toBe(String(4n * PRICE));
    expect(await unclaimed()).toBe(String(6n * PRICE));
  });

  it("claims against a payer's timed withdrawal before its delay ends: the withdrawal takes only what was not earned", async () => {
    const evm = t.localnet!.evm;
    const chain = new BatchSettlementChain(evm);
    const w = await channelPayer(evm, 1_000_000n, 100n * PRICE);
    for (let i = 0; i < 10; i++) expect((await w.pay(`${t.url}/v1/epoch`)).status).toBe(200);
    const { config, channelId } = channelOf(w, terms);
    await evm.fundEth(w.address, 10n ** 17n);
    const before = await chain.usdcBalance(w.address);
    await chain.send(w.key, 'initiateWithdraw', [config, 100n * PRICE]);
    // The claimer watches owing channels every second: the withdrawal is seen and claimed against.
    await vi.waitUntil(async () => (await chain.channel(channelId)).totalClaimed === 10n * PRICE, { timeout: 30_000, interval: 200 });
    const { initiatedAt } = await chain.pendingWithdrawal(channelId);
    await chain.setNextBlockTimestamp(initiatedAt + 900);
    await chain.send(w.key, 'finalizeWithdraw', [config]);
    expect((await chain.usdcBalance(w.address)) - before).toBe(90n * PRICE);
    expect((await chain.channel(channelId)).totalClaimed).toBe(10n * PRICE);
  }, 60_000);
});

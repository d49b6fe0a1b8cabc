/**
 * A payer's cooperative refund racing our claim batch that holds its channel, against the running
 * service and the local EVM (the hostile review's "found and left": "one of the two reverts, and a
 * reverting batch quarantines the channel"). Two payers pay; the batch holds both channels.
 *
 * The claim batch first: its send is held at the RPC proxy while the refund is asked; the refund is
 * simulated and estimated against the chain before the claim, then queued behind the held send on
 * our relayer's one account nonce; the claim is mined first, the refund after it. The refund
 * first: the rows the claimer read before the refund (our last voucher of the refunded channel) are
 * mined after the refund landed. Neither reverts: the contract's claim is cumulative, a row at or
 * below what is claimed is a no-op, and the refund leaves the channel's balance at what we charged,
 * never below a row we hold. Nothing is quarantined, the other payer's channel is claimed, and
 * every unit answered is claimed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PaymentRequirements } from '@x402/core/types';
import { signVoucher } from '@x402/evm/batch-settlement/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { BatchSettlementChain } from '../helpers/batch-settlement-chain.ts';
import { BASE, CHANNEL_CONTRACT, type ChannelPayer, channelOf, channelPayer, channelTerms } from '../helpers/channel-payer.ts';
import { type HeldSendService, headBlock, minedSince, startHeldSendService } from '../helpers/held-send-service.ts';

const PRICE = 1000n;
const DEPOSIT = 50n * PRICE;
const PATH = '/v1/epoch';
const NO_AUTOMATIC_CLAIM = ['--channel-claim-threshold', '999999999', '--channel-claim-age', '999999'];
const authorizerKey = generateEvmKey();
const dir = mkdtempSync(join(tmpdir(), 'refund-claim-'));
let t: HeldSendService;
let terms: PaymentRequirements;

beforeAll(async () => {
  writeFileSync(join(dir, 'authorizer.key'), authorizerKey, { mode: 0o600 });
  t = await startHeldSendService(() => CHANNEL_CONTRACT, [...NO_AUTOMATIC_CLAIM, '--channel-authorizer-key', join(dir, 'authorizer.key')]);
  terms = await channelTerms(`${t.service.url}${PATH}`);
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function payers(calls: number): Promise<ChannelPayer[]> {
  const all = [await channelPayer(t.localnet.evm, 1_000_000n, DEPOSIT), await channelPayer(t.localnet.evm, 1_000_000n, DEPOSIT)];
  for (const payer of all) {
    for (let i = 0; i < calls; i++) {
      const res = await payer.pay(`${t.service.url}${PATH}`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  }
  return all;
}

async function adminClaim(): Promise<any> {
  const token = readFileSync(t.service.adminTokenPath!, 'utf8').trim();
  const res = await fetch(`${t.service.adminUrl}/channels/claim`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  return res.json();
}

it('the claim batch first, the refund asked while its send is held: both mined, nothing reverted or quarantined, every unit claimed', async () => {
  const [other, refunder] = await payers(2);
  const chain = new BatchSettlementChain(t.localnet.evm);
  const before = await headBlock(t.localnet);
  t.proxy.holdNextSend();
  const claim = adminClaim();
  await t.proxy.sendHeld;
  const refund = refunder!.scheme.refund(`${t.service.url}${PATH}`);
  // The batch's estimate and the refund's: the refund is simulated and queued behind the held claim.
  await t.proxy.estimatesAtLeast(2);
  t.proxy.release();
  const [claimed, refunded] = await Promise.all([claim, refund]);
  expect(refunded).toMatchObject({ success: true, amount: String(DEPOSIT - 2n * PRICE) });
  expect(claimed).toMatchObject({ lastClaim: { channels: 2, units: String(4n * PRICE) }, lastError: null, quarantined: { count: 0 } });
  // The claim, the refund (claim row and refund in one multicall) and the sweep.
  expect(await minedSince(t.localnet, before)).toEqual({ sent: 3, reverted: 0 });
  expect(await chain.channel(channelOf(other!, terms).channelId)).toEqual({ balance: DEPOSIT, totalClaimed: 2n * PRICE });
  expect(await chain.channel(channelOf(refunder!, terms).channelId)).toEqual({ balance: 2n * PRICE, totalClaimed: 2n * PRICE });
  const health = (await (await fetch(`${t.service.url}/health`)).json()) as any;
  expect(health.channels).toMatchObject({ unclaimedUnits: '0', quarantined: { count: 0 } });
}, 120_000);

it('the refund first, while its send is held: the claim rows read before it (the refunded channel at our last voucher) mine after it as a no-op row, nothing reverted', async () => {
  const [other, refunder] = await payers(3);
  const chain = new BatchSettlementChain(t.localnet.evm);
  const o = channelOf(other!, terms);
  const r = channelOf(refunder!, terms);
  // The rows a batch read before the refund holds: each channel's last voucher (3 calls), claimed up to it.
  const row = async (payer: ChannelPayer, c: typeof o) => {
    const voucher = await signVoucher(evmAccountFromKey(payer.key), c.channelId, String(3n * PRICE), BASE);
    return { voucher: { channel: c.config, maxClaimableAmount: 3n * PRICE }, signature: voucher.signature, totalClaimed: 3n * PRICE };
  };
  const rows = [await row(other!, o), await row(refunder!, r)];
  const before = await headBlock(t.localnet);
  t.proxy.holdNextSend();
  const refund = refunder!.scheme.refund(`${t.service.url}${PATH}`);
  await t.proxy.sendHeld;
  // Our claimer asked now waits for the refund in the channel's queue, then claims.
  const claim = adminClaim();
  t.proxy.release();
  const [refunded, claimed] = await Promise.all([refund, claim]);
  expect(refunded).toMatchObject({ success: true, amount: String(DEPOSIT - 3n * PRICE) });
  expect(claimed).toMatchObject({ lastError: null, quarantined: { count: 0 } });
  expect(await chain.channel(r.channelId)).toEqual({ balance: 3n * PRICE, totalClaimed: 3n * PRICE });
  expect(await chain.channel(o.channelId)).toEqual({ balance: DEPOSIT, totalClaimed: 3n * PRICE });
  // The batch read before the refund, mined after it (as our authorizer, who may claim): a no-op row, no revert.
  await t.localnet.evm.fundEth(evmAddressOfKey(authorizerKey), 10n ** 17n);
  expect(await chain.revertOf(evmAddressOfKey(authorizerKey), 'claim', [rows])).toBe('no revert');
  const receipt = await chain.send(authorizerKey, 'claim', [rows]);
  expect(receipt.status).toBe('success');
  expect(await chain.channel(r.channelId)).toEqual({ balance: 3n * PRICE, totalClaimed: 3n * PRICE });
  expect((await minedSince(t.localnet, before)).reverted).toBe(0);
  const health = (await (await fetch(`${t.service.url}/health`)).json()) as any;
  expect(health.channels).toMatchObject({ unclaimedUnits: '0', quarantined: { count: 0 } });
}, 120_000);

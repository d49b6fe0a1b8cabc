/**
 * The x402 `batch-settlement` scheme end to end on the local EVM, driven by the OFFICIAL
 * @x402/evm code against our channel contract (packages/localnet/contracts/X402BatchSettlement.sol)
 * at the SDK's canonical address: the official client builds deposits and vouchers, the official
 * facilitator (BatchSettlementEvmScheme) verifies them and settles deposits, batched claims,
 * receiver sweeps and cooperative refunds. Every token movement is checked to the unit against
 * what was charged. One chain, one story: the tests run in order and share its state.
 */
import { BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, MULTICALL3_ADDRESS, loadContractArtifact } from '@solana-x402-intel/localnet';
import {
  BATCH_SETTLEMENT_ADDRESS as SDK_SETTLEMENT_ADDRESS,
  BATCH_SETTLEMENT_DOMAIN,
  type ChannelConfig,
  claimBatchTypes,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS as SDK_COLLECTOR_ADDRESS,
  refundTypes,
  voucherTypes,
} from '@x402/evm';
import { type AbiEvent, type AbiFunction, hashTypedData, toEventSelector, toFunctionSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimBatchDigest } from '../../src/chain/evm/evm-channel-typed-data.ts';
import { type BatchSettlementFixture, type Payer, PRICE, startBatchSettlementFixture, WITHDRAW_DELAY } from '../helpers/batch-settlement-fixture.ts';

type Hex = `0x${string}`;
const FUNDS = 1_000_000n;
const DEPOSIT = 100_000n;
const DOMAIN = { ...BATCH_SETTLEMENT_DOMAIN, chainId: 8453, verifyingContract: SDK_SETTLEMENT_ADDRESS };

let f: BatchSettlementFixture;
let payerA: Payer;
let payerB: Payer;
let configA: ChannelConfig;
let configB: ChannelConfig;
let idA: Hex;
let idB: Hex;

beforeAll(async () => {
  f = await startBatchSettlementFixture('batch-settlement-evm');
  [payerA, payerB] = [await f.newPayer(FUNDS), await f.newPayer(FUNDS)];
  // A signs vouchers with a committed EOA authorizer; B leaves it zero (verified against the payer).
  [configA, configB] = [f.configFor(payerA), f.configFor(payerB, false)];
  [idA, idB] = [f.channelId(configA), f.channelId(configB)];
});
afterAll(() => f?.close());

describe('x402 batch-settlement with the official client and facilitator', () => {
  it('has the contracts at the SDK addresses, and the SDK channel ids and EIP-712 digests', async () => {
    expect([BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS]).toEqual([SDK_SETTLEMENT_ADDRESS, SDK_COLLECTOR_ADDRESS]);
    for (const address of [BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, MULTICALL3_ADDRESS])
      expect((await f.chain.publicClient.getCode({ address: address as Hex }))?.length).toBeGreaterThan(100);
    expect(await f.chain.read('getChannelId', [configA])).toBe(idA);
    const typed = <T extends Record<string, unknown>>(types: T, primaryType: keyof T & string, message: Record<string, unknown>) =>
      hashTypedData({ domain: DOMAIN, types, primaryType, message } as Parameters<typeof hashTypedData>[0]);
    expect(await f.chain.read('getVoucherDigest', [idA, 1234n])).toBe(typed(voucherTypes, 'Voucher', { channelId: idA, maxClaimableAmount: 1234n }));
    expect(await f.chain.read('getRefundDigest', [idA, 7n, 99n])).toBe(typed(refundTypes, 'Refund', { channelId: idA, nonce: 7n, amount: 99n }));
    const rows = [
      f.claimRow(configA, { channelId: idA, maxClaimableAmount: '5', signature: '0x' }, 4n),
      f.claimRow(configB, { channelId: idB, maxClaimableAmount: '9', signature: '0x' }, 9n),
    ];
    const entries = [
      { channelId: idA, maxClaimableAmount: 5n, totalClaimed: 4n },
      { channelId: idB, maxClaimableAmount: 9n, totalClaimed: 9n },
    ];
    const asArgs = rows.map((r) => ({
      ...r,
      voucher: { ...r.voucher, maxClaimableAmount: BigInt(r.voucher.maxClaimableAmount) },
      totalClaimed: BigInt(r.totalClaimed),
    }));
    const digest = await f.chain.read('getClaimBatchDigest', [asArgs]);
    expect(digest).toBe(typed(claimBatchTypes, 'ClaimBatch', { claims: entries }));
    // Our native digest of the batch (what the claimer's signature is over) is the contract's.
    expect(`0x${claimBatchDigest(rows, 8453).toString('hex')}`).toBe(digest);
  });

  it('deposits: the official facilitator verifies and settles the official client deposit via the ERC-3009 collector', async () => {
    for (const [payer, config, id] of [
      [payerA, configA, idA],
      [payerB, configB, idB],
    ] as const) {
      const payment = await f.depositPayload(payer, config, DEPOSIT, PRICE);
      const verified = await f.facilitator.verify(payment, f.requirements);
      expect(verified).toMatchObject({ isValid: true, payer: payer.address, extra: { channelId: id, balance: '0', totalClaimed: '0' } });
      const settled = await f.facilitator.settle(payment, f.requirements);
      expect(settled).toMatchObject({ success: true, amount: String(DEPOSIT), extra: { channelState: { balance: String(DEPOSIT), refundNonce: '0' } } });
      expect((await f.chain.eventsOf(settled.transaction)).map((e) => e.eventName)).toEqual(['ChannelCreated', 'Deposited']);
      expect(await f.chain.usdcBalance(payer.address)).toBe(FUNDS - DEPOSIT);
    }
    expect(await f.chain.usdcBalance(BATCH_SETTLEMENT_ADDRESS)).toBe(2n * DEPOSIT);
    expect(await f.chain.usdcBalance(ERC3009_DEPOSIT_COLLECTOR_ADDRESS)).toBe(0n);
  });

  it('matches the ABI the SDK encodes with: every function selector and event topic', () => {
    const official = f.official.abi ?? [];
    const ours = loadContractArtifact('X402BatchSettlement');
    const functions = official.filter((i): i is AbiFunction => i.type === 'function');
    expect(functions.length).toBeGreaterThanOrEqual(18);
    const selectors = new Set(Object.values(ours.methodIdentifiers).map((s) => `0x${s}`));
    expect(functions.filter((fn) => !selectors.has(toFunctionSelector(fn))).map((fn) => fn.name)).toEqual([]);
    const ourEvents = new Set((ours.abi as AbiEvent[]).filter((i) => i.type === 'event').map((e) => toEventSelector(e)));
    const events = official.filter((i): i is AbiEvent => i.type === 'event');
    expect(events.filter((e) => !ourEvents.has(toEventSelector(e))).map((e) => e.name)).toEqual([]);
  });

  it('verifies vouchers, then claims two channels in one claimWithSignature (facilitator-signed, then server-signed)', async () => {
    const vouchersA = [await f.voucher(payerA, configA, 2_000n), await f.voucher(payerA, configA, 3_000n)];
    const voucherB = await f.voucher(payerB, configB, 2_000n);
    for (const [v, config] of [
      [vouchersA[0], configA],
      [vouchersA[1], configA],
      [voucherB, configB],
    ] as const) {
      const verified = await f.facilitator.verify(f.envelope({ type: 'voucher', channelConfig: config, voucher: v }), f.requirements);
      expect(verified).toMatchObject({ isValid: true, extra: { balance: String(DEPOSIT) } });
    }
    const claim = await f.facilitator.settle(
      f.envelope({ type: 'claim', claims: [f.claimRow(configA, vouchersA[1]!, 3_000n), f.claimRow(configB, voucherB, 2_000n)] }),
      f.requirements,
    );
    expect(claim).toMatchObject({ success: true });
    expect((await f.chain.eventsOf(claim.transaction)).map((e) => e.eventName)).toEqual(['Claimed', 'Claimed']);
    // Dynamic pricing: a 4,000 ceiling of which the server charged only 500 more; the server
    // signs this ClaimBatch itself with the SDK's types (the facilitator relays it).
    const v4 = await f.voucher(payerA, configA, 4_000n);
    const rows = [f.claimRow(configA, v4, 3_500n)];
    const entries = [{ channelId: idA, maxClaimableAmount: 4_000n, totalClaimed: 3_500n }];
    const claimAuthorizerSignature = await f.authorizer.signTypedData({
      domain: DOMAIN,
      types: claimBatchTypes,
      primaryType: 'ClaimBatch',
      message: { claims: entries },
    });
    expect(await f.facilitator.settle(f.envelope({ type: 'claim', claims: rows, claimAuthorizerSignature }), f.requirements)).toMatchObject({ success: true });
    expect(await f.chain.channel(idA)).toEqual({ balance: DEPOSIT, totalClaimed: 3_500n });
    expect(await f.chain.channel(idB)).toEqual({ balance: DEPOSIT, totalClaimed: 2_000n });
    expect(await f.chain.receiverTotals(f.receiver)).toEqual({ totalClaimed: 5_500n, totalSettled: 0n });
    expect(await f.chain.usdcBalance(f.receiver)).toBe(0n); // claims move no tokens
    expect(f.official.writes.filter((w) => w === 'claimWithSignature')).toHaveLength(2);
  });

  it('settles claimed funds to the receiver in one transfer, exactly, and then has nothing to settle', async () => {
    const sweep = f.envelope({ type: 'settle', receiver: f.receiver, token: f.evm.usdcAddress });
    expect(await f.facilitator.settle(sweep, f.requirements)).toMatchObject({ success: true, amount: '5500' });
    expect(await f.chain.usdcBalance(f.receiver)).toBe(5_500n);
    expect(await f.chain.usdcBalance(BATCH_SETTLEMENT_ADDRESS)).toBe(2n * DEPOSIT - 5_500n);
    expect(await f.facilitator.settle(sweep, f.requirements)).toMatchObject({ success: false, errorReason: 'invalid_batch_settlement_evm_nothing_to_settle' });
  });

  it('refunds cooperatively: the facilitator claims the last voucher and refunds in one multicall', async () => {
    const charged = await f.voucher(payerB, configB, 2_600n); // a last 600 charge, not claimed yet
    expect(await f.facilitator.verify(f.envelope({ type: 'voucher', channelConfig: configB, voucher: charged }), f.requirements)).toMatchObject({
      isValid: true,
    });
    const zeroCharge = await f.voucher(payerB, configB, 2_600n);
    const request = { type: 'refund', channelConfig: configB, voucher: zeroCharge };
    expect(await f.facilitator.verify(f.envelope(request), f.requirements)).toMatchObject({ isValid: true, extra: { refundNonce: '0' } });
    const enriched = { ...request, amount: '1500', refundNonce: '0', claims: [f.claimRow(configB, zeroCharge, 2_600n)] };
    const refunded = await f.facilitator.settle(f.envelope(enriched), f.requirements);
    expect(refunded).toMatchObject({ success: true, amount: '1500', extra: { channelState: { balance: '98500', totalClaimed: '2600', refundNonce: '1' } } });
    expect(f.official.writes.at(-1)).toBe('multicall');
    expect((await f.chain.eventsOf(refunded.transaction)).map((e) => e.eventName)).toEqual(['Claimed', 'Refunded']);
    expect(await f.chain.usdcBalance(payerB.address)).toBe(FUNDS - DEPOSIT + 1_500n);
    expect(await f.chain.refundNonce(idB)).toBe(1n);
  });

  it('refundWithSignature: a signature is good for its nonce only, and any refund advances the nonce', async () => {
    const sign = (nonce: bigint, amount: bigint) =>
      f.authorizer.signTypedData({ domain: DOMAIN, types: refundTypes, primaryType: 'Refund', message: { channelId: idB, nonce, amount } });
    const early = await sign(1n, 500n);
    // A direct refund by the receiver uses nonce 1, so the signature made for it is void.
    await f.chain.send(f.receiverKey, 'refund', [configB, 200n], { abi: f.official.abi });
    expect(await f.chain.refundNonce(idB)).toBe(2n);
    expect(await f.chain.revertOf(payerB.address, 'refundWithSignature', [configB, 500n, 1n, early])).toBe('InvalidRefundNonce');
    // The facilitator relays a server-signed refund for the current nonce (no claims: a direct call).
    const refundAuthorizerSignature = await sign(2n, 500n);
    const payload = {
      type: 'refund',
      channelConfig: configB,
      voucher: await f.voucher(payerB, configB, 2_600n),
      amount: '500',
      refundNonce: '2',
      claims: [],
      refundAuthorizerSignature,
    };
    expect(await f.facilitator.settle(f.envelope(payload), f.requirements)).toMatchObject({ success: true, amount: '500' });
    expect(f.official.writes.at(-1)).toBe('refundWithSignature');
    expect(await f.chain.revertOf(payerB.address, 'refundWithSignature', [configB, 500n, 2n, refundAuthorizerSignature])).toBe('InvalidRefundNonce');
    expect(await f.chain.revertOf(payerB.address, 'refundWithSignature', [configB, 101n, 3n, await sign(3n, 100n)])).toBe('InvalidAuthorizerSignature');
    expect(await f.chain.usdcBalance(payerB.address)).toBe(FUNDS - DEPOSIT + 1_500n + 200n + 500n);
    // A refund with nothing to return (a channel never funded) moves nothing, yet spends nonce 0.
    const empty = f.configFor(payerB, false, `0x${'11'.repeat(32)}`);
    const receipt = await f.chain.send(f.receiverKey, 'refund', [empty, 100n]);
    expect(receipt.status).toBe('success');
    expect((await f.chain.eventsOf(receipt.transactionHash)).map((e) => e.eventName)).toEqual([]);
    expect(await f.chain.refundNonce(f.channelId(empty))).toBe(1n);
  });

  it('timed withdrawal: claims land during the delay; finalize waits for it and pays only the unclaimed escrow', async () => {
    const unclaimed = DEPOSIT - 3_500n;
    expect(await f.chain.revertOf(payerA.address, 'initiateWithdraw', [configA, unclaimed + 1n])).toBe('WithdrawExceedsUnclaimed');
    expect(await f.chain.revertOf(f.receiver, 'initiateWithdraw', [configA, unclaimed])).toBe('Unauthorized');
    const started = await f.chain.send(payerA.key, 'initiateWithdraw', [configA, unclaimed], { abi: f.official.abi });
    const { initiatedAt } = await f.chain.pendingWithdrawal(idA);
    expect(initiatedAt).toBe(Number((await f.chain.publicClient.getBlock({ blockHash: started.blockHash })).timestamp));
    // The server learns of the withdrawal from the facilitator and claims its last voucher in time.
    const last = await f.voucher(payerA, configA, 5_000n);
    const verified = await f.facilitator.verify(f.envelope({ type: 'voucher', channelConfig: configA, voucher: last }), f.requirements);
    expect(verified).toMatchObject({ isValid: true, extra: { withdrawRequestedAt: initiatedAt } });
    expect(await f.facilitator.settle(f.envelope({ type: 'claim', claims: [f.claimRow(configA, last, 5_000n)] }), f.requirements)).toMatchObject({
      success: true,
    });
    const readyAt = initiatedAt + WITHDRAW_DELAY;
    await f.chain.setNextBlockTimestamp(readyAt - 1);
    const early = await f.chain.send(payerA.key, 'finalizeWithdraw', [configA], { abi: f.official.abi, gas: 300_000n });
    expect(early.status).toBe('reverted');
    expect((await f.chain.pendingWithdrawal(idA)).amount).toBe(unclaimed);
    await f.chain.setNextBlockTimestamp(readyAt);
    const done = await f.chain.send(payerA.key, 'finalizeWithdraw', [configA], { abi: f.official.abi });
    const [finalized] = await f.chain.eventsOf(done.transactionHash);
    expect(finalized).toMatchObject({ eventName: 'WithdrawFinalized', args: { amount: DEPOSIT - 5_000n } });
    expect(await f.chain.usdcBalance(payerA.address)).toBe(FUNDS - 5_000n); // asked 96,500, got 95,000
    expect(await f.chain.pendingWithdrawal(idA)).toEqual({ amount: 0n, initiatedAt: 0 });
    expect(await f.chain.channel(idA)).toEqual({ balance: 5_000n, totalClaimed: 5_000n });
  });

  it('in the end, the receiver holds exactly what was charged and the escrow exactly what is unclaimed', async () => {
    const sweep = f.envelope({ type: 'settle', receiver: f.receiver, token: f.evm.usdcAddress });
    expect(await f.facilitator.settle(sweep, f.requirements)).toMatchObject({ success: true, amount: '2100' });
    expect(await f.chain.usdcBalance(f.receiver)).toBe(5_000n + 2_600n);
    const unclaimedB = DEPOSIT - 2_600n - 1_500n - 200n - 500n;
    expect(await f.chain.usdcBalance(BATCH_SETTLEMENT_ADDRESS)).toBe(unclaimedB);
    expect(await f.chain.usdcBalance(payerB.address)).toBe(FUNDS - 2_600n - unclaimedB);
    expect(f.official.writes).toEqual(expect.arrayContaining(['deposit', 'claimWithSignature', 'settle', 'multicall', 'refundWithSignature']));
  });
});

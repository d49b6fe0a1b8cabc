/**
 * The channel contract's refusals, at the contract level: claims above a voucher's ceiling or a
 * channel's balance, forged or mismatched signatures, callers without the role, a finalize before
 * the withdrawal delay, replayed deposit authorizations. Channels are opened with the OFFICIAL
 * @x402/evm client and facilitator; direct calls are encoded with the SDK's own ABI where it has
 * the function, and reverts are named by our ABI's custom errors.
 */
import { ERC3009_DEPOSIT_COLLECTOR_ADDRESS, loadContractArtifact } from '@solana-x402-intel/localnet';
import { BATCH_SETTLEMENT_ADDRESS, BATCH_SETTLEMENT_DOMAIN, type ChannelConfig, claimBatchTypes } from '@x402/evm';
import type { Abi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import {
  type BatchSettlementFixture,
  type Payer,
  type SignedVoucher,
  startBatchSettlementFixture,
  WITHDRAW_DELAY,
} from '../helpers/batch-settlement-fixture.ts';

type Hex = `0x${string}`;
const DEPOSIT = 10_000n;
const DOMAIN = { ...BATCH_SETTLEMENT_DOMAIN, chainId: 8453, verifyingContract: BATCH_SETTLEMENT_ADDRESS };
const stranger = evmAccountFromKey(generateEvmKey());

let f: BatchSettlementFixture;
let payerP: Payer;
let payerQ: Payer;
let configP: ChannelConfig;
let configQ: ChannelConfig;

/** A claim row as the contract's ABI takes it (integers as bigint). */
function row(config: ChannelConfig, voucher: SignedVoucher, totalClaimed: bigint) {
  return { voucher: { channel: config, maxClaimableAmount: BigInt(voucher.maxClaimableAmount) }, signature: voucher.signature, totalClaimed };
}

/** A ClaimBatch signature by `signer` over the given (channel, ceiling, total) entries. */
function signBatch(signer: typeof stranger, rows: ReturnType<typeof row>[]): Promise<Hex> {
  const claims = rows.map((r) => ({
    channelId: f.channelId(r.voucher.channel),
    maxClaimableAmount: r.voucher.maxClaimableAmount,
    totalClaimed: r.totalClaimed,
  }));
  return signer.signTypedData({ domain: DOMAIN, types: claimBatchTypes, primaryType: 'ClaimBatch', message: { claims } });
}

async function deposit(payer: Payer, config: ChannelConfig, amount: bigint) {
  const payment = await f.depositPayload(payer, config, amount, 1_000n);
  const settled = await f.facilitator.settle(payment, f.requirements);
  expect(settled).toMatchObject({ success: true });
  return { payment, settled };
}

beforeAll(async () => {
  f = await startBatchSettlementFixture('batch-settlement-contract');
  [payerP, payerQ] = [await f.newPayer(1_000_000n), await f.newPayer(1_000_000n)];
  [configP, configQ] = [f.configFor(payerP), f.configFor(payerQ, false)];
  await deposit(payerP, configP, DEPOSIT);
  await deposit(payerQ, configQ, DEPOSIT);
});
afterAll(() => f?.close());

describe('X402BatchSettlement refusals', () => {
  it('a claim above the voucher ceiling or the channel balance reverts, however it is submitted', async () => {
    const v3000 = await f.voucher(payerP, configP, 3_000n);
    const over = [row(configP, v3000, 3_001n)];
    expect(await f.chain.revertOf(f.receiver, 'claim', [over])).toBe('ClaimExceedsVoucher');
    expect(await f.chain.revertOf(stranger.address, 'claimWithSignature', [over, await signBatch(f.authorizer, over)])).toBe('ClaimExceedsVoucher');
    const viaFacilitator = await f.facilitator.settle(f.envelope({ type: 'claim', claims: [f.claimRow(configP, v3000, 3_001n)] }), f.requirements);
    expect(viaFacilitator).toMatchObject({ success: false, errorReason: 'invalid_batch_settlement_evm_claim_simulation_failed' });
    const vHuge = await f.voucher(payerP, configP, 20_000n);
    const aboveBalance = [row(configP, vHuge, DEPOSIT + 1n)];
    expect(await f.chain.revertOf(stranger.address, 'claimWithSignature', [aboveBalance, await signBatch(f.authorizer, aboveBalance)])).toBe(
      'ClaimExceedsBalance',
    );
    const wholeBalance = [row(configP, vHuge, DEPOSIT)];
    expect(await f.chain.revertOf(stranger.address, 'claimWithSignature', [wholeBalance, await signBatch(f.authorizer, wholeBalance)])).toBe('no revert');
  });

  it('a forged or mismatched claim or voucher signature reverts', async () => {
    const rows = [row(configP, await f.voucher(payerP, configP, 3_000n), 3_000n), row(configQ, await f.voucher(payerQ, configQ, 2_000n), 2_000n)];
    expect(await f.chain.revertOf(stranger.address, 'claimWithSignature', [rows, await signBatch(f.authorizer, rows)])).toBe('no revert');
    expect(await f.chain.revertOf(stranger.address, 'claimWithSignature', [rows, await signBatch(stranger, rows)])).toBe('InvalidAuthorizerSignature');
    const signedForLess = await signBatch(f.authorizer, [rows[0]!, { ...rows[1]!, totalClaimed: 1_000n }]);
    expect(await f.chain.revertOf(stranger.address, 'claimWithSignature', [rows, signedForLess])).toBe('InvalidAuthorizerSignature');
    // A voucher signed by someone else, for a channel with and without a payerAuthorizer.
    const forgedP = [row(configP, await f.voucher({ ...payerP, account: stranger }, configP, 3_000n), 3_000n)];
    expect(await f.chain.revertOf(f.receiver, 'claim', [forgedP])).toBe('InvalidVoucherSignature');
    const forgedQ = [row(configQ, await f.voucher({ ...payerQ, account: stranger }, configQ, 2_000n), 2_000n)];
    expect(await f.chain.revertOf(stranger.address, 'claimWithSignature', [forgedQ, await signBatch(f.authorizer, forgedQ)])).toBe('InvalidVoucherSignature');
    const otherAuthorizer = { ...configQ, receiverAuthorizer: stranger.address };
    const mixed = [rows[0]!, { ...rows[1]!, voucher: { ...rows[1]!.voucher, channel: otherAuthorizer } }];
    expect(await f.chain.revertOf(stranger.address, 'claimWithSignature', [mixed, await signBatch(f.authorizer, mixed)])).toBe('AuthorizerMismatch');
    expect(await f.chain.revertOf(stranger.address, 'claimWithSignature', [[], await signBatch(f.authorizer, [])])).toBe('EmptyClaims');
    expect(await f.chain.revertOf(stranger.address, 'claim', [rows])).toBe('Unauthorized');
  });

  it('claim() by the receiver needs no signature; a total at or below what is claimed is a no-op', async () => {
    const v3000 = await f.voucher(payerP, configP, 3_000n);
    const first = await f.chain.send(f.receiverKey, 'claim', [[row(configP, v3000, 3_000n)]], { abi: f.official.abi });
    expect((await f.chain.eventsOf(first.transactionHash)).map((e) => e.eventName)).toEqual(['Claimed']);
    const again = await f.chain.send(f.receiverKey, 'claim', [[row(configP, v3000, 2_500n)]], { abi: f.official.abi });
    expect(await f.chain.eventsOf(again.transactionHash)).toEqual([]);
    expect(await f.chain.channel(f.channelId(configP))).toEqual({ balance: DEPOSIT, totalClaimed: 3_000n });
  });

  it('withdrawals: payer side only, one at a time, not before the delay, reduced and then cancelled by refunds', async () => {
    const id = f.channelId(configP);
    expect(await f.chain.revertOf(stranger.address, 'initiateWithdraw', [configP, 1_000n])).toBe('Unauthorized');
    expect(await f.chain.revertOf(payerP.address, 'finalizeWithdraw', [configP])).toBe('NoPendingWithdraw');
    const started = await f.chain.send(payerP.key, 'initiateWithdraw', [configP, 5_000n], { abi: f.official.abi });
    expect(await f.chain.revertOf(payerP.address, 'initiateWithdraw', [configP, 1_000n])).toBe('WithdrawPending');
    expect(await f.chain.revertOf(payerP.address, 'finalizeWithdraw', [configP])).toBe('WithdrawDelayNotElapsed');
    const { initiatedAt } = await f.chain.pendingWithdrawal(id);
    expect(initiatedAt).toBe(Number((await f.chain.publicClient.getBlock({ blockHash: started.blockHash })).timestamp));
    await f.chain.setNextBlockTimestamp(initiatedAt + WITHDRAW_DELAY - 1);
    expect((await f.chain.send(payerP.key, 'finalizeWithdraw', [configP], { gas: 300_000n })).status).toBe('reverted');
    const before = await f.chain.usdcBalance(payerP.address);
    await f.chain.send(f.receiverKey, 'refund', [configP, 2_000n], { abi: f.official.abi });
    expect(await f.chain.pendingWithdrawal(id)).toEqual({ amount: 3_000n, initiatedAt });
    await f.chain.send(f.receiverKey, 'refund', [configP, 4_000n], { abi: f.official.abi });
    expect(await f.chain.pendingWithdrawal(id)).toEqual({ amount: 0n, initiatedAt: 0 });
    expect(await f.chain.usdcBalance(payerP.address)).toBe(before + 6_000n);
    expect(await f.chain.channel(id)).toEqual({ balance: DEPOSIT - 6_000n, totalClaimed: 3_000n });
    expect(await f.chain.revertOf(stranger.address, 'refund', [configP, 1n])).toBe('Unauthorized');
    expect(await f.chain.revertOf(f.receiver, 'refund', [configP, 0n])).toBe('ZeroAmount');
  });

  it('a full refund of a never-claimed channel closes it; the next deposit creates it again', async () => {
    const id = f.channelId(configQ);
    const drained = await f.chain.send(f.receiverKey, 'refund', [configQ, DEPOSIT]);
    expect((await f.chain.eventsOf(drained.transactionHash)).map((e) => e.eventName)).toEqual(['Refunded', 'ChannelClosed']);
    expect(await f.chain.channel(id)).toEqual({ balance: 0n, totalClaimed: 0n });
    const voucher = await f.voucher(payerQ, configQ, 1_000n);
    const verdict = await f.facilitator.verify(f.envelope({ type: 'voucher', channelConfig: configQ, voucher }), f.requirements);
    expect(verdict).toMatchObject({ isValid: false, invalidReason: 'invalid_batch_settlement_evm_channel_not_found' });
    const { settled } = await deposit(payerQ, configQ, 5_000n);
    expect((await f.chain.eventsOf(settled.transaction)).map((e) => e.eventName)).toEqual(['ChannelCreated', 'Deposited']);
  });

  it('deposits: only through the settlement contract, once per authorization, into a valid config', async () => {
    const collectorAbi = loadContractArtifact('Erc3009DepositCollector').abi as Abi;
    const collectArgs = [payerP.address, f.evm.usdcAddress, 1n, f.channelId(configP), '0x'];
    expect(await f.chain.revertOf(stranger.address, 'collect', collectArgs, ERC3009_DEPOSIT_COLLECTOR_ADDRESS as Hex, collectorAbi)).toBe('OnlySettlement');
    const { payment } = await deposit(payerQ, configQ, 1_000n);
    const replay = await f.facilitator.verify(payment, f.requirements);
    expect(replay).toMatchObject({ isValid: false, invalidReason: 'invalid_batch_settlement_evm_deposit_simulation_failed' });
    const short = { ...configP, withdrawDelay: 60 };
    expect(await f.chain.revertOf(stranger.address, 'deposit', [short, 1n, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, '0x'])).toBe('InvalidChannelConfig');
    expect(await f.chain.revertOf(stranger.address, 'deposit', [configP, 0n, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, '0x'])).toBe('ZeroAmount');
  });
});

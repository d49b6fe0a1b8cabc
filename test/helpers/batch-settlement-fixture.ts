/**
 * A fresh local EVM with the parties of an x402 `batch-settlement` payment: the OFFICIAL
 * @x402/evm facilitator (BatchSettlementEvmScheme over a viem signer of the local EVM, with a
 * receiverAuthorizer key it signs claims and refunds with), a receiver, and funded payers whose
 * deposits and vouchers the OFFICIAL client functions build.
 *
 * The facilitator's signer is wrapped to record what the reference code does on chain: the ABI
 * it encodes the channel contract with (the SDK keeps it internal; it passes it to readContract)
 * and the functions it writes, so tests can call the contract with the SDK's own encoding.
 */
import { BATCH_SETTLEMENT_ADDRESS, type LocalEvm, startLocalEvm } from '@solana-x402-intel/localnet';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { ChannelConfig } from '@x402/evm';
import { computeChannelId, createBatchSettlementEIP3009DepositPayload, signVoucher } from '@x402/evm/batch-settlement/client';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/facilitator';
import type { Abi } from 'viem';
import { evmAccountFromKey, evmAddressOfKey, type EvmHexKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { BatchSettlementChain } from './batch-settlement-chain.ts';
import { referenceEvmSigner } from './evm-reference-signer.ts';

type Hex = `0x${string}`;

export const NETWORK = 'eip155:8453';
/** The per-request price the requirements announce (units of 6-decimal USDC). */
export const PRICE = 1_000n;
/** The spec's minimum delay (15 minutes), the shortest a channel may have. */
export const WITHDRAW_DELAY = 900;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const PAYER_GAS_WEI = 10n ** 17n;

/** A funded payer: its key, its viem account (an x402 ClientEvmSigner) and address. */
export interface Payer {
  readonly key: EvmHexKey;
  readonly account: ReturnType<typeof evmAccountFromKey>;
  readonly address: Hex;
}

/** A signed cumulative voucher, as the official client returns it. */
export type SignedVoucher = Awaited<ReturnType<typeof signVoucher>>;

/** What the reference facilitator did on chain: the ABI it encoded with, the functions it wrote. */
export interface OfficialCalls {
  abi: Abi | undefined;
  readonly writes: string[];
}

function recordingSigner(evm: LocalEvm, key: EvmHexKey, official: OfficialCalls) {
  const base = referenceEvmSigner(evm.url, key);
  const isSettlement = (a: string) => a.toLowerCase() === BATCH_SETTLEMENT_ADDRESS.toLowerCase();
  return {
    ...base,
    readContract(args: Parameters<typeof base.readContract>[0]) {
      if (isSettlement(args.address)) official.abi ??= args.abi as Abi;
      return base.readContract(args);
    },
    writeContract(args: Parameters<typeof base.writeContract>[0]) {
      if (isSettlement(args.address)) official.writes.push(args.functionName);
      return base.writeContract(args);
    },
  };
}

function requirementsFor(evm: LocalEvm, receiver: Hex, receiverAuthorizer: Hex): PaymentRequirements {
  return {
    scheme: 'batch-settlement',
    network: NETWORK,
    amount: String(PRICE),
    asset: evm.usdcAddress,
    payTo: receiver,
    maxTimeoutSeconds: 3600,
    extra: { receiverAuthorizer, withdrawDelay: WITHDRAW_DELAY, name: evm.name, version: evm.version },
  };
}

/** The chain and the parties of one test file; `close()` stops the chain. */
export class BatchSettlementFixture {
  readonly chain: BatchSettlementChain;
  readonly official: OfficialCalls = { abi: undefined, writes: [] };
  readonly facilitator: BatchSettlementEvmScheme;
  readonly authorizer: Payer['account'];
  readonly receiverKey: EvmHexKey = generateEvmKey();
  readonly receiver: Hex = evmAddressOfKey(this.receiverKey) as Hex;
  readonly requirements: PaymentRequirements;

  constructor(
    readonly evm: LocalEvm,
    facilitatorKey: EvmHexKey,
  ) {
    this.chain = new BatchSettlementChain(evm);
    this.authorizer = evmAccountFromKey(generateEvmKey());
    this.facilitator = new BatchSettlementEvmScheme(recordingSigner(evm, facilitatorKey, this.official), this.authorizer);
    this.requirements = requirementsFor(evm, this.receiver, this.authorizer.address);
  }

  /** An x402 v2 payment payload accepting this fixture's requirements. */
  envelope(payload: Record<string, unknown>): PaymentPayload {
    return { x402Version: 2, accepted: this.requirements, payload };
  }

  /** A payer with `usdc` units of LocalUsdc and some ETH for its own withdrawal calls. */
  async newPayer(usdc: bigint): Promise<Payer> {
    const key = generateEvmKey();
    const account = evmAccountFromKey(key);
    await this.evm.fundUsdc(account.address, usdc);
    await this.evm.fundEth(account.address, PAYER_GAS_WEI);
    return { key, account, address: account.address };
  }

  /** The payer's channel to our receiver; `ownAuthorizer: false` leaves payerAuthorizer zero. */
  configFor(payer: Payer, ownAuthorizer = true, salt: Hex = `0x${'00'.repeat(32)}`): ChannelConfig {
    return {
      payer: payer.address,
      payerAuthorizer: ownAuthorizer ? payer.address : ZERO_ADDRESS,
      receiver: this.receiver,
      receiverAuthorizer: this.authorizer.address,
      token: this.evm.usdcAddress as Hex,
      withdrawDelay: WITHDRAW_DELAY,
      salt,
    };
  }

  /** The official client's channel id. */
  channelId(config: ChannelConfig): Hex {
    return computeChannelId(config, NETWORK);
  }

  /** The official client's deposit payload (EIP-3009 authorization + first voucher). */
  async depositPayload(payer: Payer, config: ChannelConfig, amount: bigint, maxClaimable: bigint): Promise<PaymentPayload> {
    const created = await createBatchSettlementEIP3009DepositPayload(payer.account, 2, this.requirements, config, String(amount), String(maxClaimable));
    return this.envelope(created.payload);
  }

  /** The official client's voucher for a cumulative ceiling. */
  voucher(payer: Payer, config: ChannelConfig, maxClaimable: bigint): Promise<SignedVoucher> {
    return signVoucher(payer.account, computeChannelId(config, NETWORK), String(maxClaimable), NETWORK);
  }

  /** A claim row as the facilitator takes it: the voucher and the channel's new cumulative total. */
  claimRow(config: ChannelConfig, voucher: SignedVoucher, totalClaimed: bigint) {
    return { voucher: { channel: config, maxClaimableAmount: voucher.maxClaimableAmount }, signature: voucher.signature, totalClaimed: String(totalClaimed) };
  }

  close(): Promise<void> {
    return this.evm.close();
  }
}

/** Starts a fresh local EVM and funds the facilitator's sender and the receiver with ETH. */
export async function startBatchSettlementFixture(seed: string): Promise<BatchSettlementFixture> {
  const evm = await startLocalEvm({ host: '127.0.0.1', port: 0, seed });
  const facilitatorKey = generateEvmKey();
  await evm.fundEth(evmAddressOfKey(facilitatorKey), 10n ** 18n);
  const fixture = new BatchSettlementFixture(evm, facilitatorKey);
  await evm.fundEth(fixture.receiver, PAYER_GAS_WEI);
  return fixture;
}

/**
 * The chain side of our payment channels on Base: reading a channel's on-chain state, and the
 * signer the channel facilitator sends and reads with. Transactions go out through our relayer's
 * queue (one account nonce shared with exact settlements); the receiver authorizer (the key that
 * signs claims and refunds) is a key of its own.
 */
import { encodeFunctionData, getAddress, type Log } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { BATCH_SETTLEMENT_ADDRESS, type ClaimToSign, signClaimBatchNative } from './evm-channel-typed-data.ts';
import { evmAccountFromKey, type EvmHexKey } from '../keys/evm-key-file.ts';
import type { EvmRelayer } from './evm-relayer.ts';
import { createEvmPublicClient } from './evm-token-reader.ts';

/** A channel's accounting as the contract holds it. */
export interface OnchainChannel {
  readonly balance: bigint;
  readonly totalClaimed: bigint;
  /** Unix seconds a timed withdrawal was initiated, 0 for none. */
  readonly withdrawRequestedAt: number;
  readonly refundNonce: bigint;
}

const BYTES32_IN = [{ name: 'channelId', type: 'bytes32' }] as const;
/** The contract's read functions we call (the scheme's public interface). */
const CHANNEL_READ_ABI = [
  {
    type: 'function',
    name: 'channels',
    stateMutability: 'view',
    inputs: BYTES32_IN,
    outputs: [
      { name: 'balance', type: 'uint128' },
      { name: 'totalClaimed', type: 'uint128' },
    ],
  },
  {
    type: 'function',
    name: 'pendingWithdrawals',
    stateMutability: 'view',
    inputs: BYTES32_IN,
    outputs: [
      { name: 'amount', type: 'uint128' },
      { name: 'initiatedAt', type: 'uint40' },
    ],
  },
  { type: 'function', name: 'refundNonce', stateMutability: 'view', inputs: BYTES32_IN, outputs: [{ name: '', type: 'uint256' }] },
] as const;

/** What the official facilitator code needs from a signer (its `FacilitatorEvmSigner` minus the address list). */
export interface ChannelTxSigner {
  readonly address: `0x${string}`;
  readContract(args: { address: `0x${string}`; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }): Promise<unknown>;
  verifyTypedData(args: {
    address: `0x${string}`;
    domain: Record<string, unknown>;
    types: Record<string, unknown>;
    primaryType: string;
    message: Record<string, unknown>;
    signature: `0x${string}`;
  }): Promise<boolean>;
  writeContract(args: {
    address: `0x${string}`;
    abi: readonly unknown[];
    functionName: string;
    args: readonly unknown[];
    gas?: bigint;
    dataSuffix?: `0x${string}`;
  }): Promise<`0x${string}`>;
  sendTransaction(args: { to: `0x${string}`; data: `0x${string}` }): Promise<`0x${string}`>;
  waitForTransactionReceipt(args: { hash: `0x${string}`; timeout?: number }): Promise<{ status: string; logs?: readonly Log[] }>;
  getCode(args: { address: `0x${string}` }): Promise<`0x${string}` | undefined>;
}

/** The key that signs claim batches and refunds (`receiverAuthorizer`), as the facilitator takes it. */
export interface ChannelAuthorizer {
  readonly address: `0x${string}`;
  signTypedData(params: {
    domain: Record<string, unknown>;
    types: Record<string, unknown>;
    primaryType: string;
    message: Record<string, unknown>;
  }): Promise<`0x${string}`>;
  /**
   * The signature of a claim batch (`claimAuthorizerSignature`), in native code: the same bytes
   * `signTypedData` of the SDK's `ClaimBatch` gives, without its JavaScript Keccak and curve.
   */
  signClaimBatch(claims: readonly ClaimToSign[], chainId: number): Promise<`0x${string}`>;
}

export interface EvmChannelChain {
  readonly signer: ChannelTxSigner;
  readonly authorizer: ChannelAuthorizer;
  /** The channel's on-chain state (three reads at once); rejects when the RPC cannot answer. */
  read(channelId: string): Promise<OnchainChannel>;
}

export interface EvmChannelChainConfig {
  readonly rpcUrl: string;
  /** Per-request wait, ms (default EVM_RPC_TIMEOUT_MS). */
  readonly timeoutMs?: number | undefined;
  readonly relayer: EvmRelayer;
  readonly authorizerKey: EvmHexKey;
}

/** Creates the reads and the signers over one RPC. */
export function createEvmChannelChain(config: EvmChannelChainConfig): EvmChannelChain {
  const client = createEvmPublicClient(config.rpcUrl, config.timeoutMs);
  const contract = getAddress(BATCH_SETTLEMENT_ADDRESS);
  const account: PrivateKeyAccount = evmAccountFromKey(config.authorizerKey);
  // The same key as bytes, for the native signer (never logged, like the account's).
  const secretKey = Buffer.from(config.authorizerKey.slice(2), 'hex');
  const args = (id: string) => [id as `0x${string}`] as const;
  const signer: ChannelTxSigner = {
    address: config.relayer.address as `0x${string}`,
    readContract: (args) => client.readContract(args as Parameters<typeof client.readContract>[0]),
    verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    writeContract: (args) => {
      const data = encodeFunctionData({ abi: args.abi, functionName: args.functionName, args: args.args } as Parameters<typeof encodeFunctionData>[0]);
      return config.relayer.sendCall({
        to: args.address,
        data: args.dataSuffix ? `${data}${args.dataSuffix.slice(2)}` : data,
        ...(args.gas ? { gas: args.gas } : {}),
      });
    },
    sendTransaction: (args) => config.relayer.sendCall(args),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt({ hash: args.hash, ...(args.timeout ? { timeout: args.timeout } : {}) }),
    getCode: (args) => client.getCode(args),
  };
  return {
    signer,
    authorizer: {
      address: account.address,
      signTypedData: (params) => account.signTypedData(params as Parameters<typeof account.signTypedData>[0]),
      signClaimBatch: (claims, chainId) => signClaimBatchNative(claims, chainId, secretKey),
    },
    async read(channelId) {
      const [[balance, totalClaimed], [, initiatedAt], refundNonce] = await Promise.all([
        client.readContract({ address: contract, abi: CHANNEL_READ_ABI, functionName: 'channels', args: args(channelId) }),
        client.readContract({ address: contract, abi: CHANNEL_READ_ABI, functionName: 'pendingWithdrawals', args: args(channelId) }),
        client.readContract({ address: contract, abi: CHANNEL_READ_ABI, functionName: 'refundNonce', args: args(channelId) }),
      ]);
      return { balance, totalClaimed, withdrawRequestedAt: Number(initiatedAt), refundNonce };
    },
  };
}

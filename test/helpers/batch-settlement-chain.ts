/**
 * The local EVM seen from a batch-settlement test: viem clients on it, the channel contract's
 * ABI from its compiled artifact (so reverts decode to our custom error names), reads of the
 * contract's state and of token balances, transactions sent as any test key, and the local EVM's
 * own clock control (`evm_setNextBlockTimestamp`), never the wall clock.
 */
import { BATCH_SETTLEMENT_ADDRESS, type LocalEvm, loadContractArtifact } from '@solana-x402-intel/localnet';
import {
  type Abi,
  BaseError,
  type Chain,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  erc20Abi,
  http,
  parseEventLogs,
  type PublicClient,
  type Tokens,
  type TransactionReceipt,
  type Transport,
} from 'viem';
import { evmAccountFromKey, type EvmHexKey } from '../../src/chain/keys/evm-key-file.ts';

type Hex = `0x${string}`;

/** The channel contract's compiled ABI (a superset of what @x402/evm encodes). */
export const settlementAbi = loadContractArtifact('X402BatchSettlement').abi as Abi;
const address = BATCH_SETTLEMENT_ADDRESS as Hex;

/**
 * The revert bytes inside a viem error. EDR answers a reverted eth_call with code -32000 and
 * `data: { data: '0x…' }`, which viem does not turn into a decoded contract error by itself.
 */
function revertData(e: unknown): Hex | undefined {
  if (!(e instanceof BaseError)) return undefined;
  const hasData = (x: unknown) => ['object', 'string'].includes(typeof (x as { data?: unknown }).data);
  const found = e.walk(hasData) as { data?: unknown } | null;
  const data = typeof found?.data === 'object' ? (found.data as { data?: unknown } | null)?.data : found?.data;
  return typeof data === 'string' && data.startsWith('0x') ? (data as Hex) : undefined;
}

/** Reads and writes against the local EVM's batch-settlement contract. */
export class BatchSettlementChain {
  readonly publicClient: PublicClient;
  private readonly chain: Chain;

  constructor(private readonly evm: LocalEvm) {
    this.chain = defineChain({
      id: evm.chainId,
      name: 'local-base',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [evm.url] } },
    });
    // PublicClient's own type arguments: inferred ones cost tsc seconds relating viem's client types.
    this.publicClient = createPublicClient<Transport, Chain | undefined, undefined, undefined, Tokens | undefined>({
      chain: this.chain,
      transport: http(evm.url),
    });
  }

  /** One JSON-RPC call, including the local EVM's evm_* methods. */
  async rpc(method: string, params: unknown[] = []): Promise<unknown> {
    const reply = await fetch(this.evm.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await reply.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  }

  /** A view of the contract, through our ABI. */
  read(functionName: string, args: readonly unknown[]): Promise<unknown> {
    return this.publicClient.readContract({ address, abi: settlementAbi, functionName, args });
  }

  usdcBalance(owner: string): Promise<bigint> {
    return this.publicClient.readContract({ address: this.evm.usdcAddress as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Hex] });
  }

  async channel(channelId: Hex): Promise<{ balance: bigint; totalClaimed: bigint }> {
    const [balance, totalClaimed] = (await this.read('channels', [channelId])) as [bigint, bigint];
    return { balance, totalClaimed };
  }

  async pendingWithdrawal(channelId: Hex): Promise<{ amount: bigint; initiatedAt: number }> {
    const [amount, initiatedAt] = (await this.read('pendingWithdrawals', [channelId])) as [bigint, number];
    return { amount, initiatedAt: Number(initiatedAt) };
  }

  async refundNonce(channelId: Hex): Promise<bigint> {
    return (await this.read('refundNonce', [channelId])) as bigint;
  }

  async receiverTotals(receiver: string): Promise<{ totalClaimed: bigint; totalSettled: bigint }> {
    const [totalClaimed, totalSettled] = (await this.read('receivers', [receiver, this.evm.usdcAddress])) as [bigint, bigint];
    return { totalClaimed, totalSettled };
  }

  /**
   * Sends a call to the contract as `key`, encoded with `abi` (ours unless given; tests pass the
   * SDK's), and returns the mined receipt. With `gas` the call is mined even when it reverts (no
   * estimate first), so a revert can be observed in a block.
   */
  async send(key: EvmHexKey, functionName: string, args: readonly unknown[], options: { abi?: Abi; gas?: bigint } = {}): Promise<TransactionReceipt> {
    const wallet = createWalletClient({ account: evmAccountFromKey(key), chain: this.chain, transport: http(this.evm.url) });
    const hash = await wallet.writeContract({ address, abi: options.abi ?? settlementAbi, functionName, args, gas: options.gas });
    return this.publicClient.waitForTransactionReceipt({ hash });
  }

  /** The custom error a call made by `from` reverts with now, or 'no revert'. */
  async revertOf(from: string, functionName: string, args: readonly unknown[], to: Hex = address, abi: Abi = settlementAbi): Promise<string> {
    try {
      await this.publicClient.simulateContract({ address: to, abi, functionName, args, account: from as Hex });
      return 'no revert';
    } catch (e) {
      const data = revertData(e);
      if (data === undefined) throw e;
      return decodeErrorResult({ abi, data }).errorName;
    }
  }

  /** The named events the contract emitted in a transaction. */
  async eventsOf(hash: string): Promise<{ eventName: string; args: Record<string, unknown> }[]> {
    const receipt = await this.publicClient.getTransactionReceipt({ hash: hash as Hex });
    const logs = receipt.logs.filter((l) => l.address.toLowerCase() === address.toLowerCase());
    return parseEventLogs({ abi: settlementAbi, logs }) as unknown as { eventName: string; args: Record<string, unknown> }[];
  }

  /** The next block's timestamp, exactly (the local EVM's clock, not the wall clock). */
  setNextBlockTimestamp(seconds: number): Promise<unknown> {
    return this.rpc('evm_setNextBlockTimestamp', [seconds]);
  }
}

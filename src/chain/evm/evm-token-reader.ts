/**
 * Reads an EIP-3009 stablecoin over Ethereum JSON-RPC (viem): chain id, EIP-712 name/version,
 * and a payer's state for one authorization (nonce used? balance). Failures are data: a token
 * without EIP-3009 (the call reverts or returns nothing) is told apart from an unreachable RPC.
 */
import {
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  createPublicClient,
  http,
  type PublicClient,
  type Tokens,
  type Transport,
} from 'viem';
import { EIP3009_TOKEN_ABI } from './evm-eip3009-abi.ts';
import { type ExpectedTransfer, readTransferReceipt, type TransferReceipt } from './evm-transfer-receipt.ts';

/** Per-request RPC time-out, ms. */
export const EVM_RPC_TIMEOUT_MS = 10_000;

export type PayerStateResult =
  | { readonly ok: true; readonly nonceUsed: boolean; readonly balance: bigint }
  | { readonly ok: false; readonly kind: 'not_eip3009' | 'rpc'; readonly message: string };

export interface EvmTokenReader {
  chainId(): Promise<number>;
  /** EIP-712 domain name and version as the contract reports them. */
  domain(): Promise<{ readonly name: string; readonly version: string }>;
  payerState(from: string, nonce: string): Promise<PayerStateResult>;
  /** The receipt of `hash` judged against the payment it must carry (evm-transfer-receipt.ts). */
  transferReceipt(hash: string, expected: Omit<ExpectedTransfer, 'asset'>): Promise<TransferReceipt>;
}

export interface EvmTokenReaderConfig {
  readonly rpcUrl: string;
  readonly asset: string;
  readonly timeoutMs?: number;
}

/** A viem public client on an HTTP JSON-RPC URL (shared with the relayer). */
export function createEvmPublicClient(rpcUrl: string, timeoutMs = EVM_RPC_TIMEOUT_MS): PublicClient {
  // The type arguments are PublicClient's own: inferred ones made tsc relate two instantiations of
  // viem's client types structurally, seconds of CPU per call site.
  return createPublicClient<Transport, Chain | undefined, undefined, undefined, Tokens | undefined>({
    transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 1 }),
  });
}

/** Whether a viem error means the contract itself refused (revert or empty return), not the RPC. */
export function isContractRefusal(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  return err.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError) !== null;
}

/** The contract's revert reason string when the error carries one, else the whole message. */
export function revertReasonOf(err: unknown): string {
  if (err instanceof BaseError) {
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError && reverted.reason) return reverted.reason;
    return err.details || err.shortMessage || err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Creates the reader; nothing is fetched until asked. */
export function createEvmTokenReader(config: EvmTokenReaderConfig): EvmTokenReader {
  const client = createEvmPublicClient(config.rpcUrl, config.timeoutMs);
  const address = config.asset as `0x${string}`;
  return {
    chainId: () => client.getChainId(),
    async domain() {
      const [name, version] = await Promise.all([
        client.readContract({ address, abi: EIP3009_TOKEN_ABI, functionName: 'name' }),
        client.readContract({ address, abi: EIP3009_TOKEN_ABI, functionName: 'version' }),
      ]);
      return { name, version };
    },
    async payerState(from, nonce) {
      const owner = from as `0x${string}`;
      const [used, balance] = await Promise.allSettled([
        client.readContract({ address, abi: EIP3009_TOKEN_ABI, functionName: 'authorizationState', args: [owner, nonce as `0x${string}`] }),
        client.readContract({ address, abi: EIP3009_TOKEN_ABI, functionName: 'balanceOf', args: [owner] }),
      ]);
      if (used.status === 'rejected') {
        const message = used.reason instanceof Error ? used.reason.message : String(used.reason);
        return { ok: false, kind: isContractRefusal(used.reason) ? 'not_eip3009' : 'rpc', message };
      }
      if (balance.status === 'rejected')
        return { ok: false, kind: 'rpc', message: balance.reason instanceof Error ? balance.reason.message : String(balance.reason) };
      return { ok: true, nonceUsed: used.value, balance: balance.value };
    },
    transferReceipt: (hash, expected) => readTransferReceipt(client, hash, { ...expected, asset: config.asset }),
  };
}

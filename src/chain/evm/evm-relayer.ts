/**
 * The settlement relayer: submits `transferWithAuthorization` from our own key (we pay gas, the
 * payer's signature moves the tokens) and waits for the receipt. Submissions are serialized
 * with a locally tracked account nonce, so concurrent settlements never collide on a nonce;
 * waiting for receipts runs concurrently.
 */
import {
  type Account,
  type Chain,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  keccak256,
  parseSignature,
  type PublicClient,
  type Tokens,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { EIP3009_TOKEN_ABI } from './evm-eip3009-abi.ts';
import type { EvmHexKey } from '../keys/evm-key-file.ts';
import type { TransferAuthorizationToRecover } from './evm-typed-data.ts';
import { createEvmPublicClient, EVM_RPC_TIMEOUT_MS, isContractRefusal, revertReasonOf } from './evm-token-reader.ts';
import { readTransferReceipt } from './evm-transfer-receipt.ts';

/** Receipt polling period, ms: a quarter of Base's 2 s block time; local automine answers at once. */
export const EVM_RECEIPT_POLL_MS = 250;

/** The signed authorization as `transferWithAuthorization` takes it (no domain: the contract knows it). */
export type TransferAuthorizationCall = Omit<TransferAuthorizationToRecover, 'domain'>;

export type SubmitResult =
  | { readonly ok: true; readonly hash: string }
  /**
   * `refused`: the token reverted in gas estimation (message carries its reason), nothing signed;
   * `rpc`: the RPC failed; `hash` is set when the signed transaction was handed to the node (it may have it).
   */
  | { readonly ok: false; readonly kind: 'refused' | 'rpc'; readonly message: string; readonly hash?: string };

/** Called with the hash of the signed transaction right before it is sent; a throw means it is not sent. */
export type BeforeSend = (hash: string) => Promise<void>;

export type ReceiptResult = { readonly status: 'success' } | { readonly status: 'reverted' | 'transfer_mismatch' | 'timeout'; readonly message: string };

/** A contract call to send from the relayer's account (the channel facilitator's transactions). */
export interface RelayedCall {
  readonly to: `0x${string}`;
  readonly data: `0x${string}`;
  readonly gas?: bigint;
}

export interface EvmRelayer {
  readonly address: string;
  /** Signs the transfer, tells `beforeSend` its hash, then broadcasts it. */
  submit(call: TransferAuthorizationCall, beforeSend?: BeforeSend): Promise<SubmitResult>;
  /**
   * Sends any call from the same account, in the same queue as `submit`: both share one account
   * nonce, so channel deposits and claims never collide with exact settlements. Rejects with the
   * node's error (the official facilitator code that calls it maps errors to reasons itself).
   */
  sendCall(call: RelayedCall): Promise<`0x${string}`>;
  /** Waits up to `timeoutMs` for the receipt and checks its AuthorizationUsed(from, nonce) and Transfer(from, to, value) logs. */
  waitForTransfer(hash: string, call: TransferAuthorizationCall, timeoutMs: number): Promise<ReceiptResult>;
}

export interface EvmRelayerConfig {
  readonly rpcUrl: string;
  readonly asset: string;
  readonly key: EvmHexKey;
  /** The chain id the RPC serves (checked at start by the caller). */
  readonly chainId: number;
  readonly timeoutMs?: number;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function transferArgs(call: TransferAuthorizationCall) {
  const sig = parseSignature(call.signature as `0x${string}`);
  const v = sig.v !== undefined ? Number(sig.v) : 27 + sig.yParity;
  return [
    call.from as `0x${string}`,
    call.to as `0x${string}`,
    call.value,
    call.validAfter,
    call.validBefore,
    call.nonce as `0x${string}`,
    v,
    sig.r,
    sig.s,
  ] as const;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Creates the relayer for one token on one chain. */
export function createEvmRelayer(config: EvmRelayerConfig): EvmRelayer {
  const account: PrivateKeyAccount = privateKeyToAccount(config.key);
  const chain: Chain = defineChain({
    id: config.chainId,
    name: `eip155:${config.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const publicClient: PublicClient = createEvmPublicClient(config.rpcUrl, config.timeoutMs);
  // WalletClient's own type arguments: inferred ones cost tsc seconds relating viem's client types.
  const wallet: WalletClient = createWalletClient<Transport, Chain | undefined, Account | undefined, undefined, Tokens | undefined>({
    account,
    chain,
    transport: http(config.rpcUrl, { timeout: config.timeoutMs ?? EVM_RPC_TIMEOUT_MS, retryCount: 1 }),
  });
  const asset = config.asset as `0x${string}`;
  let nextNonce: number | null = null;
  let tail: Promise<unknown> = Promise.resolve();

  /** Prepares (gas estimation: a token refusal shows here) and signs; the hash is known before anything is sent. */
  async function sign(call: TransferAuthorizationCall): Promise<`0x${string}`> {
    nextNonce ??= await publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' });
    const data = encodeFunctionData({ abi: EIP3009_TOKEN_ABI, functionName: 'transferWithAuthorization', args: transferArgs(call) });
    const request = await wallet.prepareTransactionRequest({ account, chain, to: asset, data, nonce: nextNonce });
    return wallet.signTransaction({ ...request, account, chain } as Parameters<WalletClient['signTransaction']>[0]);
  }

  async function send(call: TransferAuthorizationCall, beforeSend?: BeforeSend): Promise<SubmitResult> {
    let signed: `0x${string}`;
    try {
      signed = await sign(call);
    } catch (err) {
      nextNonce = null;
      const refused = isContractRefusal(err) || /revert/i.test(errorMessage(err));
      return { ok: false, kind: refused ? 'refused' : 'rpc', message: refused ? revertReasonOf(err) : errorMessage(err) };
    }
    const hash = keccak256(signed);
    // A throw here (the settlement record not written) sends nothing; the account nonce stays unused.
    await beforeSend?.(hash);
    try {
      await wallet.sendRawTransaction({ serializedTransaction: signed });
      nextNonce = (nextNonce ?? 0) + 1;
      return { ok: true, hash };
    } catch (err) {
      // Re-read the account nonce next time: a failed send may or may not have consumed it.
      nextNonce = null;
      const refused = isContractRefusal(err) || /revert/i.test(errorMessage(err));
      return { ok: false, kind: refused ? 'refused' : 'rpc', message: refused ? revertReasonOf(err) : errorMessage(err), hash };
    }
  }

  async function sendRaw(call: RelayedCall): Promise<`0x${string}`> {
    try {
      nextNonce ??= await publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' });
      const hash = await wallet.sendTransaction({ account, chain, to: call.to, data: call.data, nonce: nextNonce, ...(call.gas ? { gas: call.gas } : {}) });
      nextNonce++;
      return hash;
    } catch (err) {
      nextNonce = null;
      throw err;
    }
  }

  return {
    address: account.address,
    submit(call, beforeSend) {
      const run = tail.then(() => send(call, beforeSend));
      tail = run.catch(() => undefined);
      return run;
    },
    sendCall(call) {
      const run = tail.then(() => sendRaw(call));
      tail = run.catch(() => undefined);
      return run;
    },
    async waitForTransfer(hash, call, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const expected = { asset, from: call.from, to: call.to, value: call.value, nonce: call.nonce };
      for (;;) {
        const found = await readTransferReceipt(publicClient, hash, expected);
        if (found.kind === 'found') return found.ok ? { status: 'success' } : { status: found.status, message: found.message };
        if (Date.now() >= deadline) return { status: 'timeout', message: `no receipt for ${hash} within ${timeoutMs} ms` };
        await sleep(Math.min(EVM_RECEIPT_POLL_MS, Math.max(0, deadline - Date.now())));
      }
    },
  };
}

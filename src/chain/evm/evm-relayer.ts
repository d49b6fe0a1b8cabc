/**
 * The settlement relayer: submits `transferWithAuthorization` from our own key (we pay gas, the
 * payer's signature moves the tokens) and waits for the receipt. Gas estimates and fee reads run
 * concurrently; only the nonce, the signature and the send are serialized, with a locally
 * tracked account nonce, so concurrent settlements never collide on a nonce and each holds the
 * queue for one round trip; waiting for receipts runs concurrently.
 */
import {
  type Account,
  type Chain,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  parseSignature,
  type PublicClient,
  type Tokens,
  type TransactionSerializable,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { EIP3009_TOKEN_ABI } from './evm-eip3009-abi.ts';
import type { EvmHexKey } from '../keys/evm-key-file.ts';
import type { TransferAuthorizationToRecover } from './evm-typed-data.ts';
import { createEvmPublicClient, EVM_RPC_TIMEOUT_MS, isContractRefusal, revertReasonOf } from './evm-token-reader.ts';
import { readTransferReceipt } from './evm-transfer-receipt.ts';
import { signTransactionNative, transactionHashOf } from './transaction-signature.ts';

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

/** A transaction with its gas and fees filled, not yet its nonce. */
type Prepared = TransactionSerializable;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Creates the relayer for one token on one chain. */
export function createEvmRelayer(config: EvmRelayerConfig): EvmRelayer {
  const account: PrivateKeyAccount = privateKeyToAccount(config.key);
  // The same key as bytes, for the native signer (never logged, like the account's).
  const secretKey = Buffer.from(config.key.slice(2), 'hex');
  const chain: Chain = defineChain({
    id: config.chainId,
    name: `eip155:${config.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
    // Fees are read before the send queue, so a transaction may wait some blocks before it is
    // signed: twice the base fee stays above it through five full blocks (EIP-1559 raises it by at
    // most 1/8 a block), where viem's default 1.2 lasts one. It is a cap: the chain charges the base fee.
    fees: { baseFeeMultiplier: 2 },
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

  /**
   * Gas and fees, read before the send queue: they need no nonce. Only the nonce, the signature
   * and the send are serialized, so the queue holds each transaction for one round trip; with the
   * estimate and fee reads in it too, a burst of deposits waited four round trips per transaction
   * ahead of it and the last ones' authorizations expired in the queue (EIP3009: authorization is
   * expired), refused though their payers had signed valid deposits.
   */
  async function prepare(call: RelayedCall): Promise<Prepared> {
    const { to, data, gas, gasPrice, maxFeePerGas, maxPriorityFeePerGas, type } = await wallet.prepareTransactionRequest({
      account,
      chain,
      to: call.to,
      data: call.data,
      ...(call.gas ? { gas: call.gas } : {}),
      parameters: ['fees', 'gas', 'type'],
    });
    const fees = type === 'legacy' ? { gasPrice } : { maxFeePerGas, maxPriorityFeePerGas };
    return { to, data, gas, type, ...fees, chainId: config.chainId } as Prepared;
  }

  /** In the queue: the account nonce, the local signature, `beforeSend`, the send. */
  async function signAndSend(prepared: Prepared, beforeSend?: BeforeSend): Promise<SubmitResult> {
    let signed: `0x${string}`;
    try {
      nextNonce ??= await publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' });
      // The account signs locally: the wallet action would ask the node its chain id first, a
      // round trip more inside the queue (the chain id was checked at start). Natively, where it can.
      const tx = { ...prepared, nonce: nextNonce };
      signed = signTransactionNative(tx, secretKey) ?? (await account.signTransaction(tx));
    } catch (err) {
      nextNonce = null;
      return { ok: false, kind: 'rpc', message: errorMessage(err) };
    }
    const hash = transactionHashOf(signed);
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

  function queued<T>(task: () => Promise<T>): Promise<T> {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  }

  async function send(call: TransferAuthorizationCall, beforeSend?: BeforeSend): Promise<SubmitResult> {
    let prepared: Prepared;
    try {
      prepared = await prepare({
        to: asset,
        data: encodeFunctionData({ abi: EIP3009_TOKEN_ABI, functionName: 'transferWithAuthorization', args: transferArgs(call) }),
      });
    } catch (err) {
      const refused = isContractRefusal(err) || /revert/i.test(errorMessage(err));
      return { ok: false, kind: refused ? 'refused' : 'rpc', message: refused ? revertReasonOf(err) : errorMessage(err) };
    }
    return queued(() => signAndSend(prepared, beforeSend));
  }

  async function sendCall(call: RelayedCall): Promise<`0x${string}`> {
    let prepared: Prepared;
    try {
      prepared = await prepare(call);
    } catch (err) {
      // The node's reason first, without viem's URL and request body: the facilitator keeps only
      // the head of the message, and before this the head was the request body, not the reason.
      throw new Error(`the relayed call failed its gas estimate: ${revertReasonOf(err)}`, { cause: err });
    }
    const sent = await queued(() => signAndSend(prepared));
    if (!sent.ok) throw new Error(`the relayed call was not sent: ${sent.message.split('\n')[0]}`);
    return sent.hash as `0x${string}`;
  }

  return {
    address: account.address,
    submit: send,
    sendCall,
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

/**
 * Whether a transaction's receipt proves that an EIP-3009 authorization paid us: the transaction
 * succeeded and the token itself logged both `AuthorizationUsed(from, nonce)` and
 * `Transfer(from -> to, value)`. A used nonce alone proves nothing: the payer can cancel it
 * (`cancelAuthorization`) or spend it in another transaction, and then nothing reached `to`.
 */
import { parseEventLogs, type PublicClient } from 'viem';
import { EIP3009_TOKEN_ABI } from './evm-eip3009-abi.ts';

/** The payment a receipt must show. */
export interface ExpectedTransfer {
  readonly asset: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly nonce: string;
}

/** A decoded token log as the judge reads it (viem's parsed logs have this shape). */
export interface TokenLog {
  readonly address: string;
  readonly eventName: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export type TransferVerdict = { readonly ok: true } | { readonly ok: false; readonly status: 'reverted' | 'transfer_mismatch'; readonly message: string };

/** What a receipt lookup found: none yet, the verdict on one, or the RPC could not say. */
export type TransferReceipt =
  | { readonly kind: 'none' }
  | { readonly kind: 'unreadable'; readonly message: string }
  | ({ readonly kind: 'found' } & TransferVerdict);

const same = (a: unknown, b: string): boolean => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

/** The verdict on one receipt (pure: the rule every settlement path applies). */
export function judgeTransferReceipt(hash: string, succeeded: boolean, logs: readonly TokenLog[], expected: ExpectedTransfer): TransferVerdict {
  if (!succeeded) return { ok: false, status: 'reverted', message: `transaction ${hash} reverted` };
  const fromToken = logs.filter((l) => same(l.address, expected.asset));
  const used = fromToken.some((l) => l.eventName === 'AuthorizationUsed' && same(l.args.authorizer, expected.from) && same(l.args.nonce, expected.nonce));
  const moved = fromToken.some(
    (l) => l.eventName === 'Transfer' && same(l.args.from, expected.from) && same(l.args.to, expected.to) && l.args.value === expected.value,
  );
  if (used && moved) return { ok: true };
  const missing = used ? 'Transfer(from -> payTo, value)' : 'AuthorizationUsed(from, nonce)';
  return { ok: false, status: 'transfer_mismatch', message: `transaction ${hash} has no matching ${missing} log from the token` };
}

/** Reads the receipt of `hash` and judges it; an RPC fault is data (`unreadable`). */
export async function readTransferReceipt(client: PublicClient, hash: string, expected: ExpectedTransfer): Promise<TransferReceipt> {
  let receipt: Awaited<ReturnType<PublicClient['getTransactionReceipt']>>;
  try {
    receipt = await client.getTransactionReceipt({ hash: hash as `0x${string}` });
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    if (name === 'TransactionReceiptNotFoundError') return { kind: 'none' };
    return { kind: 'unreadable', message: err instanceof Error ? err.message : String(err) };
  }
  const logs = parseEventLogs({ abi: EIP3009_TOKEN_ABI, logs: receipt.logs }) as unknown as TokenLog[];
  return { kind: 'found', ...judgeTransferReceipt(hash, receipt.status === 'success', logs, expected) };
}

/**
 * The payer's side of a verified exact-SVM payment: which token account the transfer draws from,
 * how much, and that account's balance before the payment (what the settlement reserves against,
 * svm-source-budget.ts). Token and Token-2022 accounts share the base layout: the amount is the
 * u64 at byte 64.
 */
import type { RpcClient } from '../../chain/rpc-client.ts';
import type { WireTransaction } from '../../chain/svm-wire.ts';

const TOKEN_AMOUNT_OFFSET = 64;
const TOKEN_ACCOUNT_MIN_BYTES = 72;
/** TransferChecked's data: discriminator, then the u64 amount. */
const TRANSFER_AMOUNT_OFFSET = 1;

export interface PayerTransfer {
  readonly source: string;
  readonly amount: bigint;
  /** The transfer authority, reported as the payer. */
  readonly payer: string;
}

/** The token amount held in a token account's data; null when the data is not a token account. */
export function tokenAmountOf(data: Uint8Array | null): bigint | null {
  if (!data || data.length < TOKEN_ACCOUNT_MIN_BYTES) return null;
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).readBigUInt64LE(TOKEN_AMOUNT_OFFSET);
}

/** The transfer of a transaction that passed the rules (its third instruction is TransferChecked). */
export function transferOf(tx: WireTransaction): PayerTransfer {
  const ix = tx.instructions[2];
  const account = (i: number) => (ix ? (tx.staticAccounts[ix.accountIndices[i] ?? -1] ?? '') : '');
  const data = ix?.data ?? new Uint8Array(0);
  const amount =
    data.length >= TRANSFER_AMOUNT_OFFSET + 8 ? Buffer.from(data.buffer, data.byteOffset, data.byteLength).readBigUInt64LE(TRANSFER_AMOUNT_OFFSET) : 0n;
  return { source: account(0), amount, payer: account(3) };
}

/**
 * The source's balance before the payment, from its data as the simulation left it: the amount
 * moved is added back, unless the transfer went to the same account (then nothing moved).
 */
export function sourceBalanceBefore(
  simulated: Uint8Array | null,
  transfer: { readonly source: string; readonly destination: string },
  amount: bigint,
): bigint | null {
  const after = tokenAmountOf(simulated);
  if (after === null) return null;
  return transfer.source === transfer.destination ? after : after + amount;
}

/** The source's balance now, read from the chain; null when it is not a token account. */
export async function readSourceBalance(rpc: Pick<RpcClient, 'getAccountInfo'>, source: string, signal: AbortSignal): Promise<bigint | null> {
  const account = await rpc.getAccountInfo(source, signal);
  return tokenAmountOf(account?.data ?? null);
}

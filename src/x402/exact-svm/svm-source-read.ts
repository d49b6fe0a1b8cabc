/**
 * The payer's side of a verified exact-SVM payment: which token account the transfer draws from,
 * how much, and that account's balance before the payment (what the settlement reserves against,
 * source-budget.ts). Token and Token-2022 accounts share the base layout (165 bytes): the mint
 * at byte 0, the amount as the u64 at byte 64, the state at byte 108.
 */
import type { RpcClient } from '../../chain/solana/rpc-client.ts';
import { encodeBase58 } from '../../chain/solana/base58.ts';
import type { WireTransaction } from '../../chain/solana/svm-wire.ts';

const decodeMint = (data: Buffer): string => encodeBase58(data.subarray(0, 32));

const TOKEN_AMOUNT_OFFSET = 64;
/** The account's state byte (after mint, owner, amount, delegate option): 1 initialized, 2 frozen. */
const TOKEN_STATE_OFFSET = 108;
const TOKEN_STATE_INITIALIZED = 1;
const TOKEN_ACCOUNT_MIN_BYTES = 72;
const TOKEN_ACCOUNT_BASE_BYTES = 165;
/** A mint's base layout (Token and Token-2022): authority option (36), supply (8), then the decimals byte. */
const MINT_DECIMALS_OFFSET = 44;
const MINT_BASE_BYTES = 82;
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

/** The source's balance now, read from the chain; null when it is not a token account. */
export async function readSourceBalance(rpc: Pick<RpcClient, 'getAccountInfo'>, source: string, signal: AbortSignal): Promise<bigint | null> {
  const account = await rpc.getAccountInfo(source, signal);
  return tokenAmountOf(account?.data ?? null);
}

/** `mint`'s decimals as the chain holds them; null when it is not a mint of one of the token programs (`owners`). */
export async function readMintDecimals(
  rpc: Pick<RpcClient, 'getAccountInfo'>,
  mint: string,
  owners: readonly string[],
  signal?: AbortSignal,
): Promise<number | null> {
  const account = await rpc.getAccountInfo(mint, signal);
  if (!account || !owners.includes(account.owner) || account.data.length < MINT_BASE_BYTES) return null;
  return account.data[MINT_DECIMALS_OFFSET] ?? null;
}

/** What the chain says of the source before the payment: its balance, or why the transfer cannot run from it. */
export type SourceCheck = { readonly ok: true; readonly balance: bigint } | { readonly ok: false; readonly message: string };

/**
 * The source as verification needs it (the one chain read of a payment's verification: the send's
 * preflight checks the rest): a token account of one of the two programs (`owners`), of `mint`,
 * initialized and not frozen, holding at least `amount`.
 */
export async function checkSource(
  rpc: Pick<RpcClient, 'getAccountInfo'>,
  source: { readonly address: string; readonly mint: string; readonly amount: bigint; readonly owners: readonly string[] },
  signal: AbortSignal,
): Promise<SourceCheck> {
  const account = await rpc.getAccountInfo(source.address, signal);
  if (!account || !source.owners.includes(account.owner) || account.data.length < TOKEN_ACCOUNT_BASE_BYTES)
    return { ok: false, message: "the payer's source token account does not exist or is not a token account" };
  const data = Buffer.from(account.data.buffer, account.data.byteOffset, account.data.byteLength);
  if (decodeMint(data) !== source.mint) return { ok: false, message: "the payer's source token account holds another mint" };
  if (data[TOKEN_STATE_OFFSET] !== TOKEN_STATE_INITIALIZED) return { ok: false, message: "the payer's source token account is frozen or not initialized" };
  const balance = data.readBigUInt64LE(TOKEN_AMOUNT_OFFSET);
  if (balance < source.amount)
    return { ok: false, message: `insufficient funds: the payer's source token account holds ${balance}, the price is ${source.amount}` };
  return { ok: true, balance };
}

/**
 * Builds the plain objects of Yellowstone's `SubscribeUpdate*` messages from the localnet's chain
 * events, in the shape Yellowstone's own plugin produces from Agave's Geyser callbacks (bytes for
 * keys, signatures and blockhashes; bincode for transaction errors). Pure; encoding is elsewhere.
 */
import type { geyser, solana } from 'laserstream-core-proto-js';
import { base58Bytes } from '../encoding/base58.ts';
import { encodeTransactionError } from './geyser-tx-error.ts';
import type { BlockMetaEvent, CompiledInstructionData, ExecutedTransaction, SlotEvent, SlotStatus, TokenBalanceData } from '../chain/types.ts';

/** The writer-side type protobufjs accepts for a uint64/int64 field. */
type Int64 = NonNullable<geyser.ISubscribeUpdateSlot['slot']>;

const TWO_POW_32 = 0x1_0000_0000n;

/** `geyser.SlotStatus` enum values for the statuses the localnet produces. */
const SLOT_STATUS_ENUM: Readonly<Record<SlotStatus, number>> = {
  processed: 0,
  confirmed: 1,
  finalized: 2,
};

/**
 * A u64/i64 for protobufjs: a number while exact, otherwise a low/high pair, which is all its
 * writer reads (balances above 2^53 lamports exist on a seeded localnet).
 */
export function toInt64(value: bigint): Int64 {
  if (value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER)) {
    return Number(value);
  }
  const unsigned = BigInt.asUintN(64, value);
  const bits = { low: Number(unsigned % TWO_POW_32) | 0, high: Number(unsigned / TWO_POW_32) | 0, unsigned: value >= 0n };
  return bits as unknown as Int64;
}

/** Account keys and blockhashes repeat across transactions; signatures never do. */
const KEY_CACHE = new Map<string, Uint8Array>();
const KEY_CACHE_MAX_ENTRIES = 16_384;

function bytes58(value: string): Uint8Array {
  return base58Bytes(value);
}

/** Decoded key bytes, cached (shared read-only: protobufjs only copies them into its writer). */
function keyBytes(value: string): Uint8Array {
  let bytes = KEY_CACHE.get(value);
  if (bytes === undefined) {
    // Clearing beats LRU bookkeeping here: a refill costs one decode per key.
    if (KEY_CACHE.size >= KEY_CACHE_MAX_ENTRIES) KEY_CACHE.clear();
    bytes = base58Bytes(value);
    KEY_CACHE.set(value, bytes);
  }
  return bytes;
}

/** `SubscribeUpdateSlot` for a slot status change. */
export function buildSlotUpdate(event: SlotEvent): geyser.ISubscribeUpdateSlot {
  return {
    slot: toInt64(event.slot),
    parent: event.parent === null ? null : toInt64(event.parent),
    status: SLOT_STATUS_ENUM[event.status],
  };
}

/** `SubscribeUpdateBlockMeta` (no rewards or entries on the localnet). */
export function buildBlockMetaUpdate(meta: BlockMetaEvent): geyser.ISubscribeUpdateBlockMeta {
  return {
    slot: toInt64(meta.slot),
    blockhash: meta.blockhash,
    rewards: { rewards: [] },
    blockTime: { timestamp: meta.blockTime },
    blockHeight: { blockHeight: toInt64(meta.blockHeight) },
    parentSlot: toInt64(meta.parentSlot),
    parentBlockhash: meta.parentBlockhash,
    executedTransactionCount: meta.executedTransactionCount,
    entriesCount: 0,
  };
}

/** `SubscribeUpdateTransaction`: the full transaction and its status meta. */
export function buildTransactionUpdate(tx: ExecutedTransaction): geyser.ISubscribeUpdateTransaction {
  const signature = bytes58(tx.signature);
  return {
    slot: toInt64(tx.slot),
    transaction: {
      signature,
      isVote: tx.isVote,
      index: tx.index,
      transaction: buildTransaction(tx, signature),
      meta: buildMeta(tx),
    },
  };
}

/** `SubscribeUpdateTransactionStatus`: signature, position and error only. */
export function buildTransactionStatusUpdate(tx: ExecutedTransaction): geyser.ISubscribeUpdateTransactionStatus {
  return {
    slot: toInt64(tx.slot),
    signature: bytes58(tx.signature),
    isVote: tx.isVote,
    index: tx.index,
    err: buildError(tx.err),
  };
}

function buildTransaction(tx: ExecutedTransaction, firstSignature: Uint8Array): solana.storage.ConfirmedBlock.ITransaction {
  return {
    // The first signature is the transaction's id, already decoded by the caller.
    signatures: tx.signatures.map((sig) => (sig === tx.signature ? firstSignature : bytes58(sig))),
    message: {
      header: {
        numRequiredSignatures: tx.header.numRequiredSignatures,
        numReadonlySignedAccounts: tx.header.numReadonlySignedAccounts,
        numReadonlyUnsignedAccounts: tx.header.numReadonlyUnsignedAccounts,
      },
      accountKeys: tx.accountKeys.map(keyBytes),
      recentBlockhash: keyBytes(tx.recentBlockhash),
      instructions: tx.instructions.map(buildInstruction),
      versioned: false,
      addressTableLookups: [],
    },
  };
}

function buildInstruction(ix: CompiledInstructionData): solana.storage.ConfirmedBlock.ICompiledInstruction {
  return { programIdIndex: ix.programIdIndex, accounts: Uint8Array.from(ix.accounts), data: ix.data };
}

function buildInnerInstruction(ix: CompiledInstructionData): solana.storage.ConfirmedBlock.IInnerInstruction {
  return {
    programIdIndex: ix.programIdIndex,
    accounts: Uint8Array.from(ix.accounts),
    data: ix.data,
    stackHeight: ix.stackHeight ?? null,
  };
}

function buildMeta(tx: ExecutedTransaction): solana.storage.ConfirmedBlock.ITransactionStatusMeta {
  return {
    err: buildError(tx.err),
    fee: toInt64(tx.fee),
    preBalances: tx.preBalances.map(toInt64),
    postBalances: tx.postBalances.map(toInt64),
    innerInstructions: tx.innerInstructions.map((inner) => ({
      index: inner.index,
      instructions: inner.instructions.map(buildInnerInstruction),
    })),
    innerInstructionsNone: false,
    logMessages: [...tx.logs],
    logMessagesNone: false,
    preTokenBalances: tx.preTokenBalances.map(buildTokenBalance),
    postTokenBalances: tx.postTokenBalances.map(buildTokenBalance),
    rewards: [],
    loadedWritableAddresses: [],
    loadedReadonlyAddresses: [],
    // Agave reports "no return data" with the flag, not with an empty message.
    returnDataNone: true,
    computeUnitsConsumed: toInt64(tx.computeUnitsConsumed),
  };
}

function buildError(err: unknown): solana.storage.ConfirmedBlock.ITransactionError | null {
  if (err === null || err === undefined) return null;
  return { err: encodeTransactionError(err) };
}

function buildTokenBalance(balance: TokenBalanceData): solana.storage.ConfirmedBlock.ITokenBalance {
  return {
    accountIndex: balance.accountIndex,
    mint: balance.mint,
    owner: balance.owner,
    programId: balance.programId,
    uiTokenAmount: {
      uiAmount: Number(balance.amount) / 10 ** balance.decimals,
      decimals: balance.decimals,
      amount: balance.amount,
      uiAmountString: uiAmountString(balance.amount, balance.decimals),
    },
  };
}

/** Agave's `real_number_string_trimmed`: the exact decimal amount without trailing zeros. */
export function uiAmountString(amount: string, decimals: number): string {
  if (decimals === 0) return amount;
  const padded = amount.padStart(decimals + 1, '0');
  const whole = padded.slice(0, -decimals);
  const fraction = padded.slice(-decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

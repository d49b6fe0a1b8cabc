/**
 * Agave's `EncodedConfirmedTransactionWithStatusMeta` for getTransaction: `json`, `jsonParsed`
 * (account keys with writable/signer/source; instructions of programs without a parser are
 * shown partially decoded, as Agave does for unknown programs) and `base64`/`base58`.
 */
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { encodeBase58 } from '../encoding/base58.ts';
import type { CompiledInstructionData, ExecutedTransaction, TokenBalanceData } from '../chain/types.ts';
import { uiTokenAmount } from '../encoding/token-layout.ts';
import { parseKnownInstruction } from './rpc-instruction-parsers.ts';

/** Encodings of getTransaction. */
export type TransactionEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';

function isWritable(tx: ExecutedTransaction, i: number): boolean {
  const staticCount = tx.accountKeys.length - (tx.loadedAddresses ? tx.loadedAddresses.writable.length + tx.loadedAddresses.readonly.length : 0);
  if (i >= staticCount) return i < staticCount + (tx.loadedAddresses?.writable.length ?? 0);
  const h = tx.header;
  if (i < h.numRequiredSignatures) return i < h.numRequiredSignatures - h.numReadonlySignedAccounts;
  return i < staticCount - h.numReadonlyUnsignedAccounts;
}

function staticKeys(tx: ExecutedTransaction): readonly string[] {
  const loaded = tx.loadedAddresses ? tx.loadedAddresses.writable.length + tx.loadedAddresses.readonly.length : 0;
  return tx.accountKeys.slice(0, tx.accountKeys.length - loaded);
}

function tokenBalances(rows: readonly TokenBalanceData[]): unknown[] {
  return rows.map((r) => ({
    accountIndex: r.accountIndex,
    mint: r.mint,
    owner: r.owner,
    programId: r.programId,
    uiTokenAmount: uiTokenAmount(BigInt(r.amount), r.decimals),
  }));
}

function compiledJson(ix: CompiledInstructionData, inner: boolean): Record<string, unknown> {
  return { programIdIndex: ix.programIdIndex, accounts: [...ix.accounts], data: encodeBase58(ix.data), stackHeight: inner ? (ix.stackHeight ?? null) : null };
}

function parsedJson(keys: readonly string[], ix: CompiledInstructionData, inner: boolean): Record<string, unknown> {
  const programId = keys[ix.programIdIndex] ?? '';
  const accounts = ix.accounts.map((i) => keys[i] ?? '');
  const stackHeight = inner ? (ix.stackHeight ?? null) : null;
  const parsed = parseKnownInstruction(programId, accounts, ix.data);
  if (parsed) return { program: parsed.program, programId, parsed: parsed.parsed, stackHeight };
  return { accounts, data: encodeBase58(ix.data), programId, stackHeight };
}

/** Agave's `innerInstructions` list, compiled (json) or parsed (jsonParsed). */
export function renderInnerInstructions(keys: readonly string[], groups: ExecutedTransaction['innerInstructions'], parsed: boolean): unknown[] {
  return groups.map((group) => ({
    index: group.index,
    instructions: group.instructions.map((ix) => (parsed ? parsedJson(keys, ix, true) : compiledJson(ix, true))),
  }));
}

/** Agave's transaction status meta. */
export function renderMeta(tx: ExecutedTransaction, parsed: boolean): Record<string, unknown> {
  return {
    computeUnitsConsumed: tx.computeUnitsConsumed,
    err: tx.err,
    fee: tx.fee,
    innerInstructions: renderInnerInstructions(tx.accountKeys, tx.innerInstructions, parsed),
    loadedAddresses: { writable: [...(tx.loadedAddresses?.writable ?? [])], readonly: [...(tx.loadedAddresses?.readonly ?? [])] },
    logMessages: [...tx.logs],
    postBalances: [...tx.postBalances],
    postTokenBalances: tokenBalances(tx.postTokenBalances),
    preBalances: [...tx.preBalances],
    preTokenBalances: tokenBalances(tx.preTokenBalances),
    rewards: [],
    status: tx.err === null ? { Ok: null } : { Err: tx.err },
  };
}

function renderMessage(tx: ExecutedTransaction, parsed: boolean): Record<string, unknown> {
  const keys = staticKeys(tx);
  const accountKeys = parsed
    ? tx.accountKeys.map((pubkey, i) => ({
        pubkey,
        writable: isWritable(tx, i),
        signer: i < tx.header.numRequiredSignatures,
        source: i < keys.length ? 'transaction' : 'lookupTable',
      }))
    : [...keys];
  const message: Record<string, unknown> = {
    accountKeys,
    ...(parsed ? {} : { header: tx.header }),
    instructions: tx.instructions.map((ix) => (parsed ? parsedJson(tx.accountKeys, ix, false) : compiledJson(ix, false))),
    recentBlockhash: tx.recentBlockhash,
  };
  if (tx.version === 0) message.addressTableLookups = lookupsOf(tx);
  return message;
}

/** Lookup table references of a v0 message, re-read from its wire bytes. */
function lookupsOf(tx: ExecutedTransaction): unknown[] {
  const message = getCompiledTransactionMessageDecoder().decode(getTransactionDecoder().decode(tx.wire).messageBytes);
  if (message.version !== 0) return [];
  return (message.addressTableLookups ?? []).map((l) => ({
    accountKey: String(l.lookupTableAddress),
    writableIndexes: [...l.writableIndexes],
    readonlyIndexes: [...l.readonlyIndexes],
  }));
}

/** The whole getTransaction answer. `version` is present only when the client declared support. */
export function renderTransaction(tx: ExecutedTransaction, encoding: TransactionEncoding, withVersion: boolean): Record<string, unknown> {
  const parsed = encoding === 'jsonParsed';
  const transaction =
    encoding === 'base64'
      ? [Buffer.from(tx.wire).toString('base64'), 'base64']
      : encoding === 'base58'
        ? [encodeBase58(tx.wire), 'base58']
        : { message: renderMessage(tx, parsed), signatures: [...tx.signatures] };
  const out: Record<string, unknown> = { blockTime: tx.blockTime, meta: renderMeta(tx, parsed), slot: tx.slot, transaction };
  if (withVersion) out.version = tx.version ?? 'legacy';
  return out;
}

/**
 * Decodes a signed wire transaction with @solana/kit's codecs into the shape the chain core
 * records: signatures, header, account keys (static, then loaded writable, then loaded readonly
 * as Agave orders them), compiled instructions and writability per account.
 */
import { getCompiledTransactionMessageDecoder, getTransactionDecoder, type Transaction } from '@solana/kit';
import type { CompiledInstructionData, MessageHeaderData } from './types.ts';
import { encodeBase58 } from '../encoding/base58.ts';
import { type KitMessage, readWireDirect } from './wire-direct.ts';

/** Address lookup table account layout: addresses start after the 56-byte metadata header. */
const LOOKUP_TABLE_META_SIZE = 56;

/** A decoded wire transaction. */
export interface DecodedTransaction {
  readonly transaction: Transaction;
  readonly version: 'legacy' | 0;
  /** Base58 signatures in order; an absent (all-zero) signature is the 1111… string. */
  readonly signatures: readonly string[];
  readonly header: MessageHeaderData;
  readonly staticAccountKeys: readonly string[];
  readonly loadedAddresses: { readonly writable: readonly string[]; readonly readonly: readonly string[] };
  /** Static keys followed by loaded writable and loaded readonly keys. */
  readonly accountKeys: readonly string[];
  readonly writable: readonly boolean[];
  readonly recentBlockhash: string;
  readonly instructions: readonly CompiledInstructionData[];
}

/** Why a wire transaction could not be decoded, phrased like Agave's RPC errors. */
export class WireDecodeError extends Error {}

/** Reads lookup table contents by table address; returns null when the table does not exist. */
export type LookupTableReader = (table: string) => Uint8Array | null;

/** Kit's codecs are stateless: built once, not per transaction. */
const TRANSACTION_DECODER = getTransactionDecoder();
const MESSAGE_DECODER = getCompiledTransactionMessageDecoder();

const ZERO_SIGNATURE = '1111111111111111111111111111111111111111111111111111111111111111';

/** The transaction and its message by kit's codecs; throws `WireDecodeError` when they refuse the bytes. */
export function readWireWithKit(wire: Uint8Array): { transaction: Transaction; message: KitMessage } {
  try {
    const transaction = TRANSACTION_DECODER.decode(wire);
    return { transaction, message: MESSAGE_DECODER.decode(transaction.messageBytes) };
  } catch (cause) {
    throw new WireDecodeError(`failed to deserialize transaction: ${(cause as Error).message}`);
  }
}

/**
 * Decodes wire bytes; throws `WireDecodeError` on malformed input or unsupported versions. The
 * common shape is read directly (wire-direct.ts), anything else by kit's codecs.
 */
export function decodeWireTransaction(wire: Uint8Array, readLookupTable: LookupTableReader): DecodedTransaction {
  const { transaction, message } = readWireDirect(wire) ?? readWireWithKit(wire);
  if (message.version !== 'legacy' && message.version !== 0) {
    throw new WireDecodeError(`unsupported transaction version ${String(message.version)}`);
  }
  const signatures = Object.values(transaction.signatures).map((s) => (s ? encodeBase58(s) : ZERO_SIGNATURE));
  const header: MessageHeaderData = {
    numRequiredSignatures: message.header.numSignerAccounts,
    numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
    numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
  };
  const staticAccountKeys = message.staticAccounts.map(String);
  const loadedAddresses = message.version === 0 ? loadLookups(message.addressTableLookups ?? [], readLookupTable) : { writable: [], readonly: [] };
  const accountKeys = [...staticAccountKeys, ...loadedAddresses.writable, ...loadedAddresses.readonly];
  const writable = accountKeys.map((_, i) => isWritableIndex(i, header, staticAccountKeys.length, loadedAddresses.writable.length));
  const instructions = message.instructions.map((ix) => ({
    programIdIndex: ix.programAddressIndex,
    accounts: ix.accountIndices ?? [],
    data: Uint8Array.from(ix.data ?? []),
  }));
  return {
    transaction,
    version: message.version,
    signatures,
    header,
    staticAccountKeys,
    loadedAddresses,
    accountKeys,
    writable,
    recentBlockhash: String(message.lifetimeToken),
    instructions,
  };
}

function isWritableIndex(i: number, header: MessageHeaderData, staticCount: number, loadedWritable: number): boolean {
  if (i >= staticCount) return i < staticCount + loadedWritable;
  if (i < header.numRequiredSignatures) return i < header.numRequiredSignatures - header.numReadonlySignedAccounts;
  return i < staticCount - header.numReadonlyUnsignedAccounts;
}

function loadLookups(
  lookups: readonly { lookupTableAddress: string; writableIndexes: readonly number[]; readonlyIndexes: readonly number[] }[],
  read: LookupTableReader,
): { writable: string[]; readonly: string[] } {
  const writable: string[] = [];
  const readonly: string[] = [];
  for (const lookup of lookups) {
    const data = read(String(lookup.lookupTableAddress));
    if (data === null) throw new WireDecodeError("Transaction loads an address table account that doesn't exist");
    const entry = (index: number): string => {
      const start = LOOKUP_TABLE_META_SIZE + index * 32;
      if (start + 32 > data.length) throw new WireDecodeError('Transaction address table lookup uses an invalid index');
      return encodeBase58(data.subarray(start, start + 32));
    };
    writable.push(...lookup.writableIndexes.map(entry));
    readonly.push(...lookup.readonlyIndexes.map(entry));
  }
  return { writable, readonly };
}

/**
 * Decoder of a Solana wire transaction (legacy or v0 message) into plain data, strict enough for
 * a payment verifier: the signature count must equal the header's, every account index must point
 * at a static account, and no byte may trail the message. Address-table lookups are decoded (so a
 * verifier can refuse them) but never resolved.
 */
import { createByteReader, PUBKEY_BYTES, type ByteReader } from '../tokens/byte-cursor.ts';

export const SIGNATURE_BYTES = 64;
/** Largest wire transaction a node accepts (PACKET_DATA_SIZE minus headers). */
export const MAX_WIRE_TRANSACTION_BYTES = 1232;

export interface WireInstruction {
  readonly programIndex: number;
  readonly accountIndices: readonly number[];
  readonly data: Uint8Array;
}

export interface WireTransaction {
  readonly version: 'legacy' | 0;
  /** One per required signer, in static-account order; all-zero means not yet signed. */
  readonly signatures: readonly Uint8Array[];
  /** Byte offset of signature 0 in the wire bytes (after the compact-u16 count). */
  readonly firstSignatureOffset: number;
  readonly messageBytes: Uint8Array;
  readonly numRequiredSignatures: number;
  readonly numReadonlySigned: number;
  readonly numReadonlyUnsigned: number;
  readonly staticAccounts: readonly string[];
  readonly recentBlockhash: string;
  readonly instructions: readonly WireInstruction[];
  /** Address tables the message looks up (v0 only). */
  readonly addressTableLookups: number;
  /** Accounts those lookups name, writable and read-only (resolved by a node only). */
  readonly lookupAccounts: number;
}

export type DecodeWireResult = { readonly ok: true; readonly tx: WireTransaction } | { readonly ok: false; readonly message: string };

/** Solana's compact-u16 ("shortvec"), 1-3 bytes. */
function shortVec(r: ByteReader): number {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = r.u8();
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return value;
  }
  throw new RangeError('compact-u16 longer than 3 bytes');
}

function decodeInstructions(r: ByteReader): WireInstruction[] {
  const count = shortVec(r);
  const out: WireInstruction[] = [];
  for (let i = 0; i < count; i++) {
    const programIndex = r.u8();
    const accountIndices = Array.from({ length: shortVec(r) }, () => r.u8());
    out.push({ programIndex, accountIndices, data: r.bytes(shortVec(r)) });
  }
  return out;
}

function decodeLookups(r: ByteReader): { tables: number; accounts: number } {
  const tables = shortVec(r);
  let accounts = 0;
  for (let i = 0; i < tables; i++) {
    r.bytes(PUBKEY_BYTES);
    for (let list = 0; list < 2; list++) {
      const indexes = shortVec(r);
      r.bytes(indexes);
      accounts += indexes;
    }
  }
  return { tables, accounts };
}

function decodeOrThrow(wire: Uint8Array): WireTransaction {
  const r = createByteReader(wire);
  const signatureCount = shortVec(r);
  const firstSignatureOffset = r.offset;
  const signatures = Array.from({ length: signatureCount }, () => r.bytes(SIGNATURE_BYTES));
  const messageStart = r.offset;
  const first = wire[messageStart];
  if (first === undefined) throw new RangeError('no message');
  let version: 'legacy' | 0 = 'legacy';
  if (first & 0x80) {
    if ((first & 0x7f) !== 0) throw new RangeError(`unsupported message version ${first & 0x7f}`);
    version = 0;
    r.u8();
  }
  const numRequiredSignatures = r.u8();
  const numReadonlySigned = r.u8();
  const numReadonlyUnsigned = r.u8();
  const staticAccounts = Array.from({ length: shortVec(r) }, () => r.pubkey());
  const recentBlockhash = r.pubkey();
  const instructions = decodeInstructions(r);
  const lookups = version === 0 ? decodeLookups(r) : { tables: 0, accounts: 0 };
  if (r.remaining !== 0) throw new RangeError(`${r.remaining} bytes trail the message`);
  if (signatureCount !== numRequiredSignatures) throw new RangeError(`${signatureCount} signatures for ${numRequiredSignatures} required signers`);
  if (numRequiredSignatures === 0 || numRequiredSignatures > staticAccounts.length) throw new RangeError('signer count out of range');
  if (numReadonlySigned >= numRequiredSignatures || numReadonlyUnsigned > staticAccounts.length - numRequiredSignatures)
    throw new RangeError('read-only counts out of range');
  if (new Set(staticAccounts).size !== staticAccounts.length) throw new RangeError('duplicate static account');
  return {
    version,
    signatures,
    firstSignatureOffset,
    messageBytes: wire.subarray(messageStart),
    numRequiredSignatures,
    numReadonlySigned,
    numReadonlyUnsigned,
    staticAccounts,
    recentBlockhash,
    instructions,
    addressTableLookups: lookups.tables,
    lookupAccounts: lookups.accounts,
  };
}

/** Decodes wire bytes; any malformation is a result, never a throw. */
export function decodeWireTransaction(wire: Uint8Array): DecodeWireResult {
  if (wire.length === 0 || wire.length > MAX_WIRE_TRANSACTION_BYTES) return { ok: false, message: `wire transaction of ${wire.length} bytes` };
  try {
    return { ok: true, tx: decodeOrThrow(wire) };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : 'malformed transaction' };
  }
}

/** A copy of `wire` with signature `index` replaced (used to add the fee payer's signature). */
export function withSignature(wire: Uint8Array, tx: WireTransaction, index: number, signature: Uint8Array): Uint8Array {
  if (signature.length !== SIGNATURE_BYTES || index < 0 || index >= tx.signatures.length) throw new RangeError('bad signature slot');
  const out = Uint8Array.from(wire);
  out.set(signature, tx.firstSignatureOffset + index * SIGNATURE_BYTES);
  return out;
}

/** True when a signature slot has not been signed yet. */
export function isEmptySignature(signature: Uint8Array): boolean {
  return signature.every((b) => b === 0);
}

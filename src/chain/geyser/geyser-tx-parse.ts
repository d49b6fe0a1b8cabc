/**
 * Reads what the timing caches need from one Yellowstone transaction update, straight from its
 * bytes: the compute-unit price (top-level ComputeBudget SetComputeUnitPrice; the runtime ignores
 * inner ones), lamports sent to the Jito tip accounts by System Transfer / TransferWithSeed in
 * top-level and inner instructions, the write-locked accounts (static keys by the header's rules
 * plus loaded writable addresses of v0 transactions), and for the signature watch
 * (signature-watch.ts) the transaction's id and whether it failed.
 */

/** The eight Jito tip accounts on mainnet (jito-labs docs; the localnet world uses the same). */
export const JITO_TIP_ACCOUNTS: readonly string[] = [
  '96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5',
  'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe',
  'Cw8CFyM9FkoMi7K7Crf6HNQqf4uEMzpKw6QNghXLvLkY',
  'ADaUMid9yfUytqMBgopwjb2DTLSokTSzL1zt6iGPaS49',
  'DfXygSm4jCyNCybVYYK6DwvWqjKee8pbDmJGcLWNDXjh',
  'ADuUkR4vqLUMWXxW9gh6D6L8pMSawimctcNZ5pGwDcEt',
  'DttWaMuVvTiduZRnguLF7jNxTgiMBZ1hyAumKUiL2KRL',
  '3AVi9Tg9Uo68tJfuvoKvqKNWKkC5wPdSSdeBnizKZ6jT',
];

/** ComputeBudget111111111111111111111111111111 as bytes, base64. */
const COMPUTE_BUDGET_KEY_B64 = 'AwZGb+UhFzL/7K26csOb57yM5bvF9xJrLEObOkAAAAA=';
const SET_COMPUTE_UNIT_PRICE = 3;
const SYSTEM_TRANSFER = 2;
const SYSTEM_TRANSFER_WITH_SEED = 11;

/** The fields of `SubscribeUpdateTransactionInfo` read here (structural, so tests can build them). */
export interface TxInfoLike {
  /** The first signature (the transaction's id), 64 bytes. */
  readonly signature?: Uint8Array;
  readonly isVote: boolean;
  readonly transaction?: {
    readonly message?: {
      readonly header?: { readonly numRequiredSignatures: number; readonly numReadonlySignedAccounts: number; readonly numReadonlyUnsignedAccounts: number };
      readonly accountKeys: readonly Uint8Array[];
      readonly instructions: readonly InstructionLike[];
    };
  };
  readonly meta?: {
    readonly err?: unknown;
    readonly innerInstructions: readonly { readonly instructions: readonly InstructionLike[] }[];
    readonly loadedWritableAddresses: readonly Uint8Array[];
    readonly loadedReadonlyAddresses: readonly Uint8Array[];
  };
}

export interface InstructionLike {
  readonly programIdIndex: number;
  readonly accounts: Uint8Array;
  readonly data: Uint8Array;
}

/** What the caches take from one landed transaction. */
export interface ParsedTransaction {
  /** Micro-lamports per CU; 0 when the transaction sets no price. */
  readonly cuPrice: number;
  readonly tipLamports: number;
  readonly writable: string[];
  readonly failed: boolean;
  /** The transaction's id as the update carries it (not copied: read it before the handler returns). */
  readonly signature: Uint8Array | null;
}

/** Base64 of a 32-byte key: the map key form of accounts in the caches. */
export function keyId(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function isZeroKey(key: Uint8Array | undefined): boolean {
  if (key === undefined || key.length !== 32) return false;
  for (let i = 0; i < 32; i++) if (key[i] !== 0) return false;
  return true;
}

function u32le(data: Uint8Array, at: number): number {
  return (data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16)) + data[at + 3]! * 0x1000000;
}

function u64le(data: Uint8Array, at: number): number {
  // Lamports and CU prices fit a double exactly below 2^53; larger values are implausible.
  return u32le(data, at) + u32le(data, at + 4) * 0x1_0000_0000;
}

/** Lamports this System instruction sends to a tip account (0 if none). */
function tipOf(ix: InstructionLike, keys: readonly Uint8Array[], tipIds: ReadonlySet<string>): number {
  if (!isZeroKey(keys[ix.programIdIndex]) || ix.data.length < 12) return 0;
  const kind = u32le(ix.data, 0);
  const destination = kind === SYSTEM_TRANSFER ? ix.accounts[1] : kind === SYSTEM_TRANSFER_WITH_SEED ? ix.accounts[2] : undefined;
  if (destination === undefined) return 0;
  const key = keys[destination];
  return key !== undefined && tipIds.has(keyId(key)) ? u64le(ix.data, 4) : 0;
}

/** Parses one transaction update; null for votes and malformed updates. */
export function parseTransaction(info: TxInfoLike, tipIds: ReadonlySet<string>): ParsedTransaction | null {
  const message = info.transaction?.message;
  if (info.isVote || message === undefined || message.header === undefined) return null;
  const meta = info.meta;
  // Instruction indexes address static keys, then loaded writable, then loaded readonly.
  const keys =
    meta && (meta.loadedWritableAddresses.length > 0 || meta.loadedReadonlyAddresses.length > 0)
      ? [...message.accountKeys, ...meta.loadedWritableAddresses, ...meta.loadedReadonlyAddresses]
      : message.accountKeys;
  let cuPrice = 0;
  let tipLamports = 0;
  for (const ix of message.instructions) {
    const program = keys[ix.programIdIndex];
    if (
      ix.data[0] === SET_COMPUTE_UNIT_PRICE &&
      ix.data.length >= 9 &&
      program !== undefined &&
      program[0] === 3 &&
      keyId(program) === COMPUTE_BUDGET_KEY_B64
    ) {
      cuPrice = u64le(ix.data, 1);
    } else {
      tipLamports += tipOf(ix, keys, tipIds);
    }
  }
  for (const inner of meta?.innerInstructions ?? []) for (const ix of inner.instructions) tipLamports += tipOf(ix, keys, tipIds);
  const h = message.header;
  const n = message.accountKeys.length;
  const writable: string[] = [];
  for (let i = 0; i < n; i++) {
    const signed = i < h.numRequiredSignatures;
    const isWritable = signed ? i < h.numRequiredSignatures - h.numReadonlySignedAccounts : i < n - h.numReadonlyUnsignedAccounts;
    if (isWritable) writable.push(keyId(message.accountKeys[i]!));
  }
  for (const key of meta?.loadedWritableAddresses ?? []) writable.push(keyId(key));
  return { cuPrice, tipLamports, writable, failed: meta?.err !== undefined && meta.err !== null, signature: info.signature ?? null };
}

/**
 * Encodes Agave's `TransactionError` JSON (as `getTransaction` shows it) into the bytes Yellowstone
 * puts in `TransactionStatusMeta.err.err`: the bincode serialisation of the Rust enum. Yellowstone
 * clients (the official one's `txErrDecode`, Rust's `bincode::deserialize`) decode exactly this,
 * so a JSON or string encoding would not do.
 *
 * Bincode for an enum: the variant index as u32 little-endian, then the payload fields in order
 * (u8 as one byte, u32 as four bytes little-endian).
 */

/** `TransactionError` variants in declaration order (solana-transaction-error 2.x/3.x). */
const TRANSACTION_ERROR_VARIANTS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'InstructionError',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'DuplicateInstruction',
  'InsufficientFundsForRent',
  'MaxLoadedAccountsDataSizeExceeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'ResanitizationNeeded',
  'ProgramExecutionTemporarilyRestricted',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

/** `InstructionError` variants in declaration order (solana-instruction-error 2.x). */
const INSTRUCTION_ERROR_VARIANTS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'Custom',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountRentEpochChange',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'BorshIoError',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsResizeExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
] as const;

/**
 * LiteSVM's JS bindings name two InstructionError variants differently from Agave; the chain core
 * may pass those names through, so they are read as the Agave variants at the same position.
 */
const INSTRUCTION_ERROR_ALIASES: Readonly<Record<string, string>> = {
  ExecutableAccountNotRentExempt: 'ExecutableAccountRentEpochChange',
  MaxAccountsExceeded: 'MaxAccountsResizeExceeded',
};

/** Transaction-level variants whose payload is a single u8 (tuple or `{ account_index }`). */
const U8_PAYLOAD_VARIANTS: ReadonlySet<string> = new Set(['DuplicateInstruction', 'InsufficientFundsForRent', 'ProgramExecutionTemporarilyRestricted']);

const U8_MAX = 0xff;
const U32_MAX = 0xffff_ffff;

/** Thrown for a JSON error shape this encoder does not know; the caller decides what to do. */
export class UnsupportedTransactionErrorError extends Error {
  override readonly name = 'UnsupportedTransactionErrorError';
}

/**
 * Bincode-encodes an Agave `TransactionError` JSON value, e.g. `"AccountNotFound"`,
 * `{ InstructionError: [0, { Custom: 1 }] }`, `{ InstructionError: [2, "InvalidArgument"] }`,
 * `{ InsufficientFundsForRent: { account_index: 3 } }`.
 */
export function encodeTransactionError(err: unknown): Uint8Array {
  const out: number[] = [];
  if (typeof err === 'string') {
    pushU32(out, variantIndex(TRANSACTION_ERROR_VARIANTS, err, err));
    if (err === 'InstructionError' || U8_PAYLOAD_VARIANTS.has(err)) throw unsupported(err);
    return Uint8Array.from(out);
  }
  const [name, payload] = singleEntry(err);
  pushU32(out, variantIndex(TRANSACTION_ERROR_VARIANTS, name, err));
  if (name === 'InstructionError') {
    if (!Array.isArray(payload) || payload.length !== 2) throw unsupported(err);
    pushU8(out, payload[0], err);
    pushInstructionError(out, payload[1]);
  } else if (U8_PAYLOAD_VARIANTS.has(name)) {
    const value = isRecord(payload) ? payload.account_index : payload;
    pushU8(out, value, err);
  } else {
    throw unsupported(err);
  }
  return Uint8Array.from(out);
}

function pushInstructionError(out: number[], err: unknown): void {
  if (typeof err === 'string') {
    if (err === 'Custom') throw unsupported(err);
    pushU32(out, variantIndex(INSTRUCTION_ERROR_VARIANTS, INSTRUCTION_ERROR_ALIASES[err] ?? err, err));
    return;
  }
  const [name, payload] = singleEntry(err);
  pushU32(out, variantIndex(INSTRUCTION_ERROR_VARIANTS, name, err));
  // BorshIoError lost its String payload in solana-instruction-error 2.x; current decoders expect
  // the unit variant, so a legacy `{ BorshIoError: "msg" }` is written as the unit variant.
  if (name === 'BorshIoError') return;
  if (name !== 'Custom') throw unsupported(err);
  if (typeof payload !== 'number' || !Number.isInteger(payload) || payload < 0 || payload > U32_MAX) {
    throw unsupported(err);
  }
  pushU32(out, payload);
}

function singleEntry(value: unknown): [string, unknown] {
  if (!isRecord(value)) throw unsupported(value);
  const entries = Object.entries(value);
  const first = entries[0];
  if (entries.length !== 1 || first === undefined) throw unsupported(value);
  return first;
}

function variantIndex(variants: readonly string[], name: string, whole: unknown): number {
  const index = variants.indexOf(name);
  if (index < 0) throw unsupported(whole);
  return index;
}

function pushU8(out: number[], value: unknown, whole: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > U8_MAX) {
    throw unsupported(whole);
  }
  out.push(value);
}

function pushU32(out: number[], value: number): void {
  out.push(value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unsupported(value: unknown): UnsupportedTransactionErrorError {
  return new UnsupportedTransactionErrorError(`cannot encode TransactionError ${JSON.stringify(value)}`);
}

/**
 * LiteSVM's native error objects rendered as Agave's `TransactionError` JSON (serde's external
 * tagging: unit variants are strings, others `{ Variant: payload }`) plus Agave's display text.
 */

/** Agave TransactionError unit variants in LiteSVM's enum order. */
const TRANSACTION_ERROR_NAMES = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
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
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

/** Agave InstructionError unit variants in LiteSVM's enum order. */
const INSTRUCTION_ERROR_NAMES = [
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
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
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
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
] as const;

/** Agave's Display text for the variants a client commonly sees; others fall back to the name. */
const DISPLAY_TEXT: Readonly<Record<string, string>> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  SignatureFailure: 'Transaction did not pass signature verification',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  UnsupportedVersion: 'Transaction version is unsupported',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  ProgramFailedToComplete: 'Program failed to complete',
};

/** Converts a LiteSVM `FailedTransactionMetadata.err()` value to Agave's TransactionError JSON. */
export function toAgaveTransactionError(err: unknown): unknown {
  if (typeof err === 'number') return TRANSACTION_ERROR_NAMES[err] ?? `UnknownTransactionError${err}`;
  const e = err as { constructor?: { name?: string }; index?: number; accountIndex?: number; err?: () => unknown };
  switch (e?.constructor?.name) {
    case 'TransactionErrorInstructionError':
      return { InstructionError: [e.index, toAgaveInstructionError(e.err?.())] };
    case 'TransactionErrorDuplicateInstruction':
      return { DuplicateInstruction: e.index };
    case 'TransactionErrorInsufficientFundsForRent':
      return { InsufficientFundsForRent: { account_index: e.accountIndex } };
    case 'TransactionErrorProgramExecutionTemporarilyRestricted':
      return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } };
    default:
      return String(err);
  }
}

function toAgaveInstructionError(err: unknown): unknown {
  if (typeof err === 'number') return INSTRUCTION_ERROR_NAMES[err] ?? `UnknownInstructionError${err}`;
  const e = err as { code?: number; msg?: string };
  if (typeof e?.code === 'number') return { Custom: e.code };
  if (typeof e?.msg === 'string') return 'BorshIoError';
  return String(err);
}

/** Agave's `Display` of a TransactionError JSON value (used in RPC error messages). */
export function describeTransactionError(err: unknown): string {
  if (typeof err === 'string') return DISPLAY_TEXT[err] ?? err;
  if (err !== null && typeof err === 'object' && 'InstructionError' in err) {
    const [index, ixErr] = (err as { InstructionError: [number, unknown] }).InstructionError;
    const detail =
      typeof ixErr === 'object' && ixErr !== null && 'Custom' in ixErr
        ? `custom program error: 0x${(ixErr as { Custom: number }).Custom.toString(16)}`
        : typeof ixErr === 'string'
          ? (DISPLAY_TEXT[ixErr] ?? ixErr)
          : JSON.stringify(ixErr);
    return `Error processing Instruction ${index}: ${detail}`;
  }
  return JSON.stringify(err);
}

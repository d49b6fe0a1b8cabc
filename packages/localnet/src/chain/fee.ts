/**
 * Agave's fee rules, recomputed from the message because LiteSVM's metadata carries no fee:
 * 5000 lamports per signature (transaction and precompile signatures) plus the prioritization
 * fee `ceil(computeUnitPrice * computeUnitLimit / 1e6)`. The default limit follows Agave with
 * `reserve_minimal_cus_for_builtin_instructions`: 3000 CU per builtin instruction, 200k per other.
 */
import type { CompiledInstructionData } from './types.ts';

/** Lamports charged per signature. */
export const LAMPORTS_PER_SIGNATURE = 5000n;
/** Compute units reserved per non-builtin instruction when no limit is requested. */
export const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000;
/** Compute units reserved per builtin instruction when no limit is requested. */
export const BUILTIN_INSTRUCTION_COMPUTE_UNITS = 3_000;
/** Hard cap of a transaction's compute unit limit. */
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
/** Compute unit price is in micro-lamports. */
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

/** Compute Budget program id. */
export const COMPUTE_BUDGET_PROGRAM_ID = 'ComputeBudget111111111111111111111111111111';
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;

/** Precompiles whose first data byte counts extra signatures that are charged like tx signatures. */
const PRECOMPILE_IDS = new Set([
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);

/** Builtin programs (native, not SBF) as Agave counts them for the default compute unit limit. */
const BUILTIN_PROGRAM_IDS = new Set([
  '11111111111111111111111111111111',
  COMPUTE_BUDGET_PROGRAM_ID,
  'Vote111111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'AddressLookupTab1e1111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  ...PRECOMPILE_IDS,
]);

/** The compute budget a message requested. */
export interface ComputeBudgetRequest {
  /** Explicit SetComputeUnitLimit value, or null. */
  readonly unitLimit: number | null;
  /** SetComputeUnitPrice in micro-lamports per CU, 0n when absent. */
  readonly unitPriceMicroLamports: bigint;
}

/** Reads SetComputeUnitLimit / SetComputeUnitPrice from top-level instructions. */
export function readComputeBudget(instructions: readonly CompiledInstructionData[], accountKeys: readonly string[]): ComputeBudgetRequest {
  let unitLimit: number | null = null;
  let unitPriceMicroLamports = 0n;
  for (const ix of instructions) {
    if (accountKeys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM_ID) continue;
    const data = ix.data;
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    if (data[0] === SET_COMPUTE_UNIT_LIMIT && data.length >= 5) unitLimit = dv.getUint32(1, true);
    if (data[0] === SET_COMPUTE_UNIT_PRICE && data.length >= 9) unitPriceMicroLamports = dv.getBigUint64(1, true);
  }
  return { unitLimit, unitPriceMicroLamports };
}

/** The compute unit limit Agave applies: requested, else the per-instruction default, capped. */
export function effectiveComputeUnitLimit(instructions: readonly CompiledInstructionData[], accountKeys: readonly string[], requested: number | null): number {
  if (requested !== null) return Math.min(requested, MAX_COMPUTE_UNIT_LIMIT);
  let total = 0;
  for (const ix of instructions) {
    const program = accountKeys[ix.programIdIndex] ?? '';
    total += BUILTIN_PROGRAM_IDS.has(program) ? BUILTIN_INSTRUCTION_COMPUTE_UNITS : DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT;
  }
  return Math.min(total, MAX_COMPUTE_UNIT_LIMIT);
}

/** Total fee in lamports Agave charges the fee payer for this message. */
export function computeTransactionFee(numSignatures: number, instructions: readonly CompiledInstructionData[], accountKeys: readonly string[]): bigint {
  let signatures = BigInt(numSignatures);
  for (const ix of instructions) {
    if (PRECOMPILE_IDS.has(accountKeys[ix.programIdIndex] ?? '')) signatures += BigInt(ix.data[0] ?? 0);
  }
  const budget = readComputeBudget(instructions, accountKeys);
  const limit = BigInt(effectiveComputeUnitLimit(instructions, accountKeys, budget.unitLimit));
  const priority = (budget.unitPriceMicroLamports * limit + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
  return signatures * LAMPORTS_PER_SIGNATURE + priority;
}

/**
 * The x402 exact-SVM transaction rules, pure: instruction layout (3-7: compute-unit limit,
 * compute-unit price under the cap, TransferChecked of exactly `amount` of `asset` to payTo's
 * associated token account with the mint's decimals, then only Memo or Lighthouse), and fee-payer isolation (our key pays
 * the fee, appears in no instruction and is not the transfer authority). Stricter than the spec
 * where our fee payer's money is at stake: the limit may not exceed what the transfer needs with a
 * margin, limit x price (the priority fee we pay) stays under a per-settlement ceiling, and the
 * signatures (5,000 lamports each) are capped.
 * Signatures and simulation are checked elsewhere (pool, RPC).
 */
import type { WireInstruction, WireTransaction } from '../../chain/solana/svm-wire.ts';
import { SVM_REASON, type SvmReason } from './svm-reasons.ts';

export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
export const LIGHTHOUSE_PROGRAM = 'L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95';
/** x402's cap on the compute-unit price (MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS in @x402/svm). */
export const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000n;
/**
 * The largest compute-unit limit a payment may make our fee payer buy. The official client sets
 * 20,000; its whole transaction consumes 692 CU on the localnet (whose token program is the lean
 * one), and the classic SPL Token TransferChecked is reported at about 6,000 CU. Twice the
 * official figure leaves room for a Token-2022 mint and wallet-injected Lighthouse checks.
 */
export const MAX_PAYMENT_COMPUTE_UNITS = 40_000;
/** Default ceiling of one settlement's priority fee (limit x price), lamports: one signature's base fee. */
export const DEFAULT_MAX_PRIORITY_FEE_LAMPORTS = 5_000;
/**
 * Most signatures a payment may carry, ours included: each is 5,000 lamports of base fee to our fee
 * payer. The official client's has 2 (ours and the transfer authority's); one more leaves room for
 * a co-signing wallet.
 */
export const MAX_REQUIRED_SIGNATURES = 3;
/** The base fee per signature the fee payer pays (Solana's, fixed). */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;
export const MIN_INSTRUCTIONS = 3;
export const MAX_INSTRUCTIONS = 7;

const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;
const TRANSFER_CHECKED = 12;
/** discriminator + u32 units / + u64 micro-lamports / + u64 amount + u8 decimals */
const COMPUTE_LIMIT_DATA_BYTES = 5;
const COMPUTE_PRICE_DATA_BYTES = 9;
const TRANSFER_CHECKED_DATA_BYTES = 10;
/** TransferChecked's decimals byte, after the discriminator and the u64 amount. */
const TRANSFER_DECIMALS_AT = 9;
const OPTIONAL_REASONS: readonly SvmReason[] = [SVM_REASON.unknownFourth, SVM_REASON.unknownFifth, SVM_REASON.unknownSixth, SVM_REASON.unknownSeventh];

export interface SvmRuleTerms {
  readonly asset: string;
  readonly amount: bigint;
  /** The mint's decimals, read from the chain: TransferChecked must name them, or the token program fails it. */
  readonly decimals: number;
  readonly feePayer: string;
  /** Most lamports of priority fee (limit x price) one settlement may cost the fee payer. */
  readonly maxPriorityFeeLamports: bigint;
  /** payTo's associated token account for `asset` under each token program. */
  readonly destinations: { readonly [TOKEN_PROGRAM]: string; readonly [TOKEN_2022_PROGRAM]: string };
}

export type SvmRuleResult =
  | { readonly ok: true; readonly payer: string; readonly transfer: { readonly source: string; readonly destination: string; readonly authority: string } }
  | { readonly ok: false; readonly reason: SvmReason; readonly payer: string };

const u64At = (data: Uint8Array, at: number): bigint => Buffer.from(data.buffer, data.byteOffset, data.byteLength).readBigUInt64LE(at);
const u32At = (data: Uint8Array, at: number): number => Buffer.from(data.buffer, data.byteOffset, data.byteLength).readUInt32LE(at);

/** The priority fee a limit and a price cost, as Solana charges it: ceil(limit x price / 10^6) lamports. */
export function priorityFeeLamports(units: number, microLamportsPerUnit: bigint): bigint {
  const product = BigInt(units) * microLamportsPerUnit;
  return (product + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
}

/**
 * What the fee payer pays for a transaction that passed the rules (limit and price are its first
 * two instructions): the base fee per signature and the priority fee.
 */
export function settlementFee(tx: WireTransaction): { readonly baseLamports: bigint; readonly priorityLamports: bigint } {
  const [limit, price] = tx.instructions;
  const priority = limit && price ? priorityFeeLamports(u32At(limit.data, 1), u64At(price.data, 1)) : 0n;
  return { baseLamports: LAMPORTS_PER_SIGNATURE * BigInt(tx.numRequiredSignatures), priorityLamports: priority };
}

function programOf(tx: WireTransaction, ix: WireInstruction): string {
  return tx.staticAccounts[ix.programIndex] ?? '';
}

/** The transfer authority as the reference reports `payer`: account 4 of the first token instruction. */
export function tokenPayer(tx: WireTransaction): string {
  for (const ix of tx.instructions) {
    const program = programOf(tx, ix);
    if ((program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM) && ix.accountIndices.length >= 4) return tx.staticAccounts[ix.accountIndices[3]!] ?? '';
  }
  return '';
}

/** Limit then price, in the reference's order; then what the two cost our fee payer together. */
function checkComputeBudget(tx: WireTransaction, maxPriorityFeeLamports: bigint): SvmReason | null {
  const [limit, price] = tx.instructions;
  if (!limit || programOf(tx, limit) !== COMPUTE_BUDGET_PROGRAM || limit.data[0] !== SET_COMPUTE_UNIT_LIMIT || limit.data.length !== COMPUTE_LIMIT_DATA_BYTES)
    return SVM_REASON.computeLimit;
  const units = u32At(limit.data, 1);
  if (units > MAX_PAYMENT_COMPUTE_UNITS) return SVM_REASON.computeLimitTooHigh;
  if (!price || programOf(tx, price) !== COMPUTE_BUDGET_PROGRAM || price.data[0] !== SET_COMPUTE_UNIT_PRICE || price.data.length !== COMPUTE_PRICE_DATA_BYTES)
    return SVM_REASON.computePrice;
  const microLamports = u64At(price.data, 1);
  if (microLamports > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS) return SVM_REASON.computePriceTooHigh;
  if (priorityFeeLamports(units, microLamports) > maxPriorityFeeLamports) return SVM_REASON.priorityFeeTooHigh;
  return null;
}

function checkOptional(tx: WireTransaction): SvmReason | null {
  for (let i = 3; i < tx.instructions.length; i++) {
    const program = programOf(tx, tx.instructions[i]!);
    if (program !== MEMO_PROGRAM && program !== LIGHTHOUSE_PROGRAM) return OPTIONAL_REASONS[i - 3] ?? SVM_REASON.unknownSeventh;
  }
  return null;
}

/** Applies every layout and isolation rule; the first broken rule is the reason. */
export function checkSvmPaymentRules(tx: WireTransaction, terms: SvmRuleTerms): SvmRuleResult {
  const fail = (reason: SvmReason, payer = ''): SvmRuleResult => ({ ok: false, reason, payer });
  if (tx.numRequiredSignatures > MAX_REQUIRED_SIGNATURES) return fail(SVM_REASON.excessiveSigners);
  if (tx.staticAccounts[0] !== terms.feePayer) return fail(SVM_REASON.feePayerMismatch);
  if (tx.addressTableLookups > 0) return fail(SVM_REASON.altUnavailable);
  const accountCount = tx.staticAccounts.length;
  if (tx.instructions.some((ix) => ix.programIndex >= accountCount || ix.accountIndices.some((a) => a >= accountCount)))
    return fail(SVM_REASON.couldNotBeDecoded);
  if (tx.instructions.length < MIN_INSTRUCTIONS || tx.instructions.length > MAX_INSTRUCTIONS) return fail(SVM_REASON.instructionsLength);
  const budget = checkComputeBudget(tx, terms.maxPriorityFeeLamports);
  if (budget) return fail(budget);
  const payer = tokenPayer(tx);
  const transfer = tx.instructions[2]!;
  const program = programOf(tx, transfer);
  if (program !== TOKEN_PROGRAM && program !== TOKEN_2022_PROGRAM) return fail(SVM_REASON.noTransfer, payer);
  if (transfer.data[0] !== TRANSFER_CHECKED || transfer.data.length !== TRANSFER_CHECKED_DATA_BYTES || transfer.accountIndices.length < 4)
    return fail(SVM_REASON.noTransfer, payer);
  const [source, mint, destination, authority] = transfer.accountIndices.slice(0, 4).map((i) => tx.staticAccounts[i]!) as [string, string, string, string];
  // Index 0 is the fee payer: it may sign for the fee and nothing else.
  if (authority === terms.feePayer || tx.instructions.some((ix) => ix.accountIndices.includes(0))) return fail(SVM_REASON.feePayerTransferringFunds, payer);
  if (mint !== terms.asset) return fail(SVM_REASON.mintMismatch, payer);
  if (destination !== terms.destinations[program]) return fail(SVM_REASON.recipientMismatch, payer);
  if (u64At(transfer.data, 1) !== terms.amount) return fail(SVM_REASON.amountMismatch, payer);
  // Not the mint's decimals: the token program fails the transfer on chain. The node's preflight
  // caught it, but a payment handed off without preflight would be answered and then fail: an
  // answer for nothing (docs/security.md). The reference facilitator's code for it is its
  // simulation's failure, so a client that branches on codes sees the same one from us.
  if (transfer.data[TRANSFER_DECIMALS_AT] !== terms.decimals) return fail(SVM_REASON.simulationFailed, payer);
  const optional = checkOptional(tx);
  if (optional) return fail(optional, payer);
  return { ok: true, payer, transfer: { source, destination, authority } };
}

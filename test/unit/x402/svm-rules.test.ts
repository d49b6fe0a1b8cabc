import { describe, expect, it } from 'vitest';
import type { WireInstruction, WireTransaction } from '../../../src/chain/solana/svm-wire.ts';
import {
  checkSvmPaymentRules,
  COMPUTE_BUDGET_PROGRAM,
  MAX_PAYMENT_COMPUTE_UNITS,
  priorityFeeLamports,
  settlementFee,
  LIGHTHOUSE_PROGRAM,
  MEMO_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  type SvmRuleTerms,
} from '../../../src/x402/exact-svm/svm-rules.ts';
import { SVM_REASON } from '../../../src/x402/exact-svm/svm-reasons.ts';

// Static accounts: 0 fee payer, 1 payer (authority), 2 source, 3 mint, 4 destination, 5..9 programs, 10 other mint.
const ACCOUNTS = [
  'FeePayer1111111111111111111111111111111111',
  'Payer11111111111111111111111111111111111111',
  'Source1111111111111111111111111111111111111',
  'Mint111111111111111111111111111111111111111',
  'Dest1111111111111111111111111111111111111111',
  COMPUTE_BUDGET_PROGRAM,
  TOKEN_PROGRAM,
  MEMO_PROGRAM,
  LIGHTHOUSE_PROGRAM,
  TOKEN_2022_PROGRAM,
  'OtherMint111111111111111111111111111111111',
];
const TERMS: SvmRuleTerms = {
  asset: ACCOUNTS[3]!,
  amount: 1000n,
  decimals: 6,
  feePayer: ACCOUNTS[0]!,
  maxPriorityFeeLamports: 5_000n,
  destinations: { [TOKEN_PROGRAM]: ACCOUNTS[4]!, [TOKEN_2022_PROGRAM]: 'Dest2022111111111111111111111111111111111' },
};

const u64 = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return [...b];
};
const u32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return [...b];
};
const limit = (units = 20_000): WireInstruction => ({ programIndex: 5, accountIndices: [], data: Uint8Array.from([2, ...u32(units)]) });
const price = (micro = 1n): WireInstruction => ({ programIndex: 5, accountIndices: [], data: Uint8Array.from([3, ...u64(micro)]) });
const transfer = (o: { amount?: bigint; accounts?: number[]; program?: number; data?: number[] } = {}): WireInstruction => ({
  programIndex: o.program ?? 6,
  accountIndices: o.accounts ?? [2, 3, 4, 1],
  data: Uint8Array.from(o.data ?? [12, ...u64(o.amount ?? 1000n), 6]),
});
const memo: WireInstruction = { programIndex: 7, accountIndices: [], data: Uint8Array.from([49]) };

function tx(instructions: WireInstruction[], over: Partial<WireTransaction> = {}): WireTransaction {
  return {
    version: 0,
    signatures: [new Uint8Array(64), new Uint8Array(64)],
    firstSignatureOffset: 1,
    messageBytes: new Uint8Array(0),
    numRequiredSignatures: 2,
    numReadonlySigned: 0,
    numReadonlyUnsigned: 5,
    staticAccounts: ACCOUNTS,
    recentBlockhash: ACCOUNTS[3]!,
    instructions,
    addressTableLookups: 0,
    lookupAccounts: 0,
    ...over,
  };
}
const reasonOf = (t: WireTransaction) => {
  const r = checkSvmPaymentRules(t, TERMS);
  return r.ok ? 'ok' : r.reason;
};

describe('checkSvmPaymentRules', () => {
  it('accepts the official client layout and reports the authority as payer', () => {
    const r = checkSvmPaymentRules(tx([limit(), price(), transfer(), memo]), TERMS);
    expect(r).toMatchObject({ ok: true, payer: ACCOUNTS[1], transfer: { destination: ACCOUNTS[4], authority: ACCOUNTS[1] } });
  });
  it('accepts a limit at ours whose priority fee is exactly the ceiling', () => {
    expect(reasonOf(tx([limit(MAX_PAYMENT_COMPUTE_UNITS), price(125_000n), transfer(), memo]))).toBe('ok');
    expect(checkSvmPaymentRules(tx([limit(40_000), price(125_000n), transfer(), memo]), { ...TERMS, maxPriorityFeeLamports: 4_999n })).toMatchObject({
      ok: false,
      reason: SVM_REASON.priorityFeeTooHigh,
    });
  });
  it('accepts Memo and Lighthouse after the transfer, up to 7 instructions', () => {
    expect(reasonOf(tx([limit(), price(), transfer(), memo, { ...memo, programIndex: 8 }, memo, memo]))).toBe('ok');
  });
  it.each([
    [
      'fee payer is not account 0',
      tx([limit(), price(), transfer(), memo], { staticAccounts: [ACCOUNTS[1]!, ACCOUNTS[0]!, ...ACCOUNTS.slice(2)] }),
      SVM_REASON.feePayerMismatch,
    ],
    [
      'four signatures (20,000 lamports of base fee)',
      tx([limit(), price(), transfer(), memo], { numRequiredSignatures: 4, signatures: Array.from({ length: 4 }, () => new Uint8Array(64)) }),
      SVM_REASON.excessiveSigners,
    ],
    ['address table lookups', tx([limit(), price(), transfer(), memo], { addressTableLookups: 1 }), SVM_REASON.altUnavailable],
    ['account index out of range', tx([limit(), price(), transfer({ accounts: [2, 3, 4, 99] }), memo]), SVM_REASON.couldNotBeDecoded],
    ['two instructions', tx([transfer(), memo]), SVM_REASON.instructionsLength],
    ['eight instructions', tx([limit(), price(), transfer(), memo, memo, memo, memo, memo]), SVM_REASON.instructionsLength],
    ['limit missing', tx([price(), transfer(), memo]), SVM_REASON.computeLimit],
    ['limit data too long', tx([{ ...limit(), data: Uint8Array.from([2, 0, 0, 0, 0, 0]) }, price(), transfer(), memo]), SVM_REASON.computeLimit],
    ['price missing', tx([limit(), transfer(), memo]), SVM_REASON.computePrice],
    ['price over the cap', tx([limit(), price(5_000_001n), transfer(), memo]), SVM_REASON.computePriceTooHigh],
    ['limit one unit over ours', tx([limit(MAX_PAYMENT_COMPUTE_UNITS + 1), price(), transfer(), memo]), SVM_REASON.computeLimitTooHigh],
    [
      'limit 1,400,000 at the price cap (the limit is judged first)',
      tx([limit(1_400_000), price(5_000_000n), transfer(), memo]),
      SVM_REASON.computeLimitTooHigh,
    ],
    ['limit 1,400,000 with no price instruction', tx([limit(1_400_000), transfer(), memo]), SVM_REASON.computeLimitTooHigh],
    ['the official limit at the price cap: 100,000 lamports', tx([limit(20_000), price(5_000_000n), transfer(), memo]), SVM_REASON.priorityFeeTooHigh],
    ['limit at ours, one lamport over the ceiling', tx([limit(40_000), price(125_001n), transfer(), memo]), SVM_REASON.priorityFeeTooHigh],
    ['transfer by another program', tx([limit(), price(), { ...transfer(), programIndex: 7 }, memo]), SVM_REASON.noTransfer],
    ['plain Transfer (3) instead of TransferChecked', tx([limit(), price(), transfer({ data: [3, ...u64(1000n)] }), memo]), SVM_REASON.noTransfer],
    ['TransferChecked with trailing bytes', tx([limit(), price(), transfer({ data: [12, ...u64(1000n), 6, 0] }), memo]), SVM_REASON.noTransfer],
    ['fee payer as authority', tx([limit(), price(), transfer({ accounts: [2, 3, 4, 0] }), memo]), SVM_REASON.feePayerTransferringFunds],
    ['fee payer as source', tx([limit(), price(), transfer({ accounts: [0, 3, 4, 1] }), memo]), SVM_REASON.feePayerTransferringFunds],
    ['fee payer in a memo', tx([limit(), price(), transfer(), { ...memo, accountIndices: [0] }]), SVM_REASON.feePayerTransferringFunds],
    ['another mint', tx([limit(), price(), transfer({ accounts: [2, 10, 4, 1] }), memo]), SVM_REASON.mintMismatch],
    ["destination not payTo's account", tx([limit(), price(), transfer({ accounts: [2, 3, 2, 1] }), memo]), SVM_REASON.recipientMismatch],
    ['Token-2022 transfer to the classic account', tx([limit(), price(), transfer({ program: 9 }), memo]), SVM_REASON.recipientMismatch],
    ['amount short', tx([limit(), price(), transfer({ amount: 999n }), memo]), SVM_REASON.amountMismatch],
    ['amount over', tx([limit(), price(), transfer({ amount: 1001n }), memo]), SVM_REASON.amountMismatch],
    // Found by payment-properties once early answers were handed off without preflight: the
    // token program fails a TransferChecked whose decimals are not the mint's.
    ["decimals not the mint's (0)", tx([limit(), price(), transfer({ data: [12, ...u64(1000n), 0] }), memo]), SVM_REASON.simulationFailed],
    ["decimals not the mint's (7)", tx([limit(), price(), transfer({ data: [12, ...u64(1000n), 7] }), memo]), SVM_REASON.simulationFailed],
    ['unknown fourth', tx([limit(), price(), transfer(), { ...memo, programIndex: 6 }]), SVM_REASON.unknownFourth],
    ['unknown seventh', tx([limit(), price(), transfer(), memo, memo, memo, { ...memo, programIndex: 5 }]), SVM_REASON.unknownSeventh],
  ])('%s', (_why, t, reason) => {
    expect(reasonOf(t)).toBe(reason);
  });
});

describe('what a settlement costs the fee payer', () => {
  it('prices limit x price as Solana charges it: rounded up to whole lamports', () => {
    expect(priorityFeeLamports(20_000, 1n)).toBe(1n);
    expect(priorityFeeLamports(1_400_000, 5_000_000n)).toBe(7_000_000n);
    expect(priorityFeeLamports(40_000, 125_000n)).toBe(5_000n);
    expect(priorityFeeLamports(40_000, 125_001n)).toBe(5_001n);
    expect(priorityFeeLamports(0, 5_000_000n)).toBe(0n);
  });
  it("the official client's transaction: two signatures and one lamport of priority (10,001 in all)", () => {
    expect(settlementFee(tx([limit(), price(), transfer(), memo]))).toEqual({ baseLamports: 10_000n, priorityLamports: 1n });
  });
  it('the issue 28 attack: 7,010,000 lamports', () => {
    const fee = settlementFee(tx([limit(1_400_000), price(5_000_000n), transfer(), memo]));
    expect(fee.baseLamports + fee.priorityLamports).toBe(7_010_000n);
  });
});

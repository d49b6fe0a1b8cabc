/**
 * Hostile Solana `exact` payments for the money properties (test/adversarial/payment-properties):
 * the transaction rebuilt by hand with up to three parts changed (compute budget from sane to
 * huge, extra signers signed or not, amount off by one, another mint, recipient or authority,
 * instructions duplicated or reordered, a byte flipped after signing).
 */
import { AccountRole, address, createKeyPairSignerFromPrivateKeyBytes, createNoopSigner, type Address, type Instruction } from '@solana/kit';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { MEMO_PROGRAM, type PaymentTxOptions } from './svm-payer.ts';

/** The Solana mutations of one run, drawn as data so a counterexample prints readably. */
export interface SvmMutation {
  readonly cuLimit: number | null;
  readonly cuPrice: bigint;
  readonly amountDelta: -1n | 0n | 1n;
  readonly decimals: number;
  readonly otherMint: boolean;
  readonly otherRecipient: boolean;
  readonly feePayerAuthority: boolean;
  /** Extra memo signers: each is a signature (5,000 lamports) our fee payer would pay for. */
  readonly extraSigners: number;
  readonly extraSignersSign: boolean;
  readonly layout: 'standard' | 'duplicate-transfer' | 'duplicate-limit' | 'duplicate-price' | 'price-first' | 'two-memos' | 'no-memo';
  /** A byte of the signed wire transaction to flip (index modulo its length), or none. */
  readonly flipByte: number | null;
}

/** True in one draw of `n`. */
export const oneIn = (n: number): fc.Arbitrary<boolean> => fc.nat({ max: n - 1 }).map((x) => x === 0);

const U32_MAX = 2 ** 32 - 1;
const U64_MAX = 2n ** 64n - 1n;

/** Compute-unit limits around ours (40,000), the official client's (20,000) and the chain's maximum. */
const cuLimit = fc.oneof(fc.constantFrom(20_000, 1, 692, 39_999, 40_000, 40_001, 200_000, 1_400_000, U32_MAX), fc.nat({ max: U32_MAX }), fc.constant(null));
/** Prices around the ceiling's edges (5,000 lamports: 250,000 at 20,000 CU, 125,000 at 40,000) and x402's cap (5,000,000). */
const cuPrice = fc.oneof(
  fc.constantFrom(0n, 1n, 125_000n, 125_001n, 250_000n, 250_001n, 5_000_000n, 5_000_001n, U64_MAX),
  fc.bigInt({ min: 0n, max: U64_MAX }),
);

/** The honest payment: the official client's budget (20,000 CU at 1 micro-lamport), nothing changed. */
const HONEST: SvmMutation = {
  cuLimit: 20_000,
  cuPrice: 1n,
  amountDelta: 0n,
  decimals: 6,
  otherMint: false,
  otherRecipient: false,
  feePayerAuthority: false,
  extraSigners: 0,
  extraSignersSign: true,
  layout: 'standard',
  flipByte: null,
};

/** One change to the honest payment; a budget inside our bounds and a co-signer are changes that should still settle. */
const svmChange: fc.Arbitrary<Partial<SvmMutation>> = fc.oneof(
  cuLimit.map((v) => ({ cuLimit: v })),
  cuPrice.map((v) => ({ cuPrice: v })),
  fc.record({ cuLimit: fc.integer({ min: 692, max: 40_000 }), cuPrice: fc.bigInt({ min: 0n, max: 125_000n }) }),
  // A budget on the ceiling's edges, under the limit cap and x402's price cap: only the ceiling stands in the way.
  fc.record({ cuLimit: fc.constantFrom(20_000, 39_999, 40_000), cuPrice: fc.constantFrom(125_000n, 125_001n, 250_000n, 250_001n, 5_000_000n) }),
  fc.constantFrom(-1n, 1n).map((v) => ({ amountDelta: v as -1n | 1n })),
  fc.constantFrom(5, 7, 0, 255).map((v) => ({ decimals: v })),
  fc.constant({ otherMint: true }),
  fc.constant({ otherRecipient: true }),
  fc.constant({ feePayerAuthority: true }),
  fc.record({ extraSigners: fc.constantFrom(1, 2, 6), extraSignersSign: fc.boolean() }),
  fc
    .constantFrom<SvmMutation['layout']>('duplicate-transfer', 'duplicate-limit', 'duplicate-price', 'price-first', 'two-memos', 'no-memo')
    .map((v) => ({ layout: v })),
  fc.nat({ max: 2000 }).map((v) => ({ flipByte: v })),
);

/** The honest payment with up to three changes (none in about one run of six). */
export const svmMutation: fc.Arbitrary<SvmMutation> = fc
  .array(svmChange, { maxLength: 3 })
  .map((changes) => Object.assign({}, HONEST, ...changes) as SvmMutation);

const randomAddress = async (): Promise<Address> => (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(randomBytes(32)))).address;

/** Required signatures of the transaction `m` builds: fee payer, transfer authority (unless it is the fee payer), extra signers. */
export const svmSignatures = (m: SvmMutation): number => (m.feePayerAuthority ? 1 : 2) + m.extraSigners;

/** The buildPaymentTx options that apply `m` to an honest payment's `base` options. */
export async function svmOptions(m: SvmMutation, base: PaymentTxOptions): Promise<PaymentTxOptions> {
  const signers = await Promise.all(Array.from({ length: m.extraSigners }, () => createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(randomBytes(32)))));
  const extra: Instruction[] = m.extraSigners
    ? [
        {
          programAddress: address(MEMO_PROGRAM),
          accounts: signers.map((s) => ({
            address: s.address,
            role: AccountRole.READONLY_SIGNER,
            signer: m.extraSignersSign ? s : createNoopSigner(s.address),
          })),
          data: new TextEncoder().encode('co-signed'),
        },
      ]
    : [];
  return {
    ...base,
    ...(m.cuLimit === null ? {} : { cuLimit: m.cuLimit }),
    cuPrice: m.cuPrice,
    amount: base.amount + m.amountDelta,
    decimals: m.decimals,
    mint: m.otherMint ? await randomAddress() : base.mint,
    payTo: m.otherRecipient ? await randomAddress() : base.payTo,
    ...(m.feePayerAuthority ? { authority: base.feePayer } : {}),
    extra,
    arrange: ({ limit, price, transfer, memo }) => {
      const layouts: Record<SvmMutation['layout'], Instruction[]> = {
        standard: [limit, price, transfer, memo],
        'duplicate-transfer': [limit, price, transfer, memo, transfer],
        'duplicate-limit': [limit, limit, price, transfer, memo],
        'duplicate-price': [limit, price, transfer, memo, price],
        'price-first': [price, limit, transfer, memo],
        'two-memos': [limit, price, transfer, memo, memo],
        'no-memo': [limit, price, transfer],
      };
      // No limit instruction at all when the run draws none: the node's default (200,000 CU per instruction) applies.
      return m.cuLimit === null ? layouts[m.layout].filter((ix) => ix !== limit) : layouts[m.layout];
    },
  };
}

/** `wire` (base64) with byte `at` (modulo its length) flipped. */
export function flipWireByte(wire: string, at: number): string {
  const bytes = Buffer.from(wire, 'base64');
  const i = at % bytes.length;
  bytes[i] = bytes[i]! ^ 0xff;
  return bytes.toString('base64');
}

/**
 * Generators of hostile payments for the money properties (test/adversarial/payment-properties):
 * a Solana `exact` transaction rebuilt by hand with any part changed (compute budget from sane to
 * huge, extra signers signed or not, amount off by one, another mint, recipient or authority,
 * instructions duplicated or reordered, a byte flipped after signing), and a Base `exact`
 * authorization from the official client changed in any field, its signature bytes included.
 */
import { AccountRole, address, createKeyPairSignerFromPrivateKeyBytes, createNoopSigner, type Address, type Instruction } from '@solana/kit';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { evmAccountFromKey, type EvmHexKey } from '../../src/chain/evm-key-file.ts';
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

/** An EIP-3009 authorization as the official EVM exact client writes it. */
export interface EvmAuthorization {
  readonly from: string;
  readonly to: string;
  readonly value: string;
  readonly validAfter: string;
  readonly validBefore: string;
  readonly nonce: string;
}

/** secp256k1's group order: s and n - s are the two signatures of one message (malleability). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** One change to a signed Base `exact` payment; `null` leaves it as signed. */
export type EvmMutation = { readonly field: string; readonly change: (payment: EvmPayment, ctx: EvmContext) => EvmPayment } | null;
export interface EvmPayment {
  readonly x402Version: unknown;
  readonly accepted: Record<string, unknown>;
  readonly resource?: unknown;
  readonly payload: { readonly authorization: EvmAuthorization; readonly signature: string };
}
/** What the mutations may draw on: the run's clock, another address, authorizations already settled. */
export interface EvmContext {
  readonly nowSeconds: number;
  readonly stranger: string;
  readonly settledNonces: readonly string[];
}

const TRANSFER_WITH_AUTHORIZATION = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const;

/**
 * `p` with its authorization signed again by `key` over the payment's own terms (the payer is the
 * attacker: it signs whatever it likes). An authorization EIP-712 cannot encode is left as it is.
 */
export async function resign(p: EvmPayment, key: EvmHexKey): Promise<EvmPayment> {
  const a = p.payload.authorization;
  const extra = (p.accepted.extra ?? {}) as { name?: string; version?: string };
  try {
    const signature = await evmAccountFromKey(key).signTypedData({
      domain: { name: extra.name, version: extra.version, chainId: 8453, verifyingContract: p.accepted.asset as `0x${string}` },
      types: { TransferWithAuthorization: TRANSFER_WITH_AUTHORIZATION },
      primaryType: 'TransferWithAuthorization',
      message: {
        from: a.from as `0x${string}`,
        to: a.to as `0x${string}`,
        value: BigInt(a.value),
        validAfter: BigInt(a.validAfter),
        validBefore: BigInt(a.validBefore),
        nonce: a.nonce as `0x${string}`,
      },
    });
    return withSig(p, signature);
  } catch {
    return p;
  }
}

const withAuth = (p: EvmPayment, auth: Partial<EvmAuthorization>): EvmPayment => ({
  ...p,
  payload: { ...p.payload, authorization: { ...p.payload.authorization, ...auth } },
});
const withSig = (p: EvmPayment, signature: string): EvmPayment => ({ ...p, payload: { ...p.payload, signature } });
const hexByte = (n: number) => n.toString(16).padStart(2, '0');

/** s -> n - s and v flipped: the same signer, other bytes. */
function malleate(signature: string): string {
  const hex = signature.slice(2);
  const s = (SECP256K1_N - BigInt(`0x${hex.slice(64, 128)}`)).toString(16).padStart(64, '0');
  const v = Number.parseInt(hex.slice(128, 130), 16);
  return `0x${hex.slice(0, 64)}${s}${hexByte(v === 27 ? 28 : 27)}`;
}

const authField = <K extends keyof EvmAuthorization>(
  field: K,
  values: fc.Arbitrary<(ctx: EvmContext, auth: EvmAuthorization) => string>,
): fc.WeightedArbitrary<EvmMutation> => ({
  // Twice the weight of the other changes: a payer signing its own authorization again makes these the live ones.
  weight: 2,
  arbitrary: values.map((value) => ({ field: `authorization.${field}`, change: (p, ctx) => withAuth(p, { [field]: value(ctx, p.payload.authorization) }) })),
});

const plusValue = (delta: bigint) => (_: EvmContext, a: EvmAuthorization) => String(BigInt(a.value) + delta);
const timeAt = (offset: number) => (ctx: EvmContext) => String(ctx.nowSeconds + offset);

export const evmMutation: fc.Arbitrary<EvmMutation> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  authField(
    'value',
    fc.constantFrom(
      plusValue(-1n),
      plusValue(1n),
      plusValue(1000n),
      () => '0',
      () => '-1000',
      () => '1e3',
      () => String(2n ** 256n),
    ),
  ),
  authField(
    'to',
    fc.constantFrom(
      (ctx: EvmContext) => ctx.stranger,
      (_: EvmContext, a: EvmAuthorization) => a.from,
      () => '0x0000000000000000000000000000000000000000',
    ),
  ),
  authField(
    'from',
    fc.constantFrom(
      (ctx: EvmContext) => ctx.stranger,
      (_: EvmContext, a: EvmAuthorization) => a.to,
    ),
  ),
  authField(
    'validAfter',
    fc.constantFrom(
      timeAt(3600),
      timeAt(0),
      timeAt(-1),
      () => '-1',
      () => String(2n ** 256n),
    ),
  ),
  authField(
    'validBefore',
    fc.constantFrom(
      timeAt(-1),
      timeAt(0),
      timeAt(5),
      timeAt(86_400 * 365),
      () => String(2n ** 256n - 1n),
      () => '0',
    ),
  ),
  authField(
    'nonce',
    fc.constantFrom(
      (ctx: EvmContext, a: EvmAuthorization) => ctx.settledNonces[0] ?? a.nonce,
      () => `0x${'00'.repeat(32)}`,
      () => '0x01',
    ),
  ),
  fc.tuple(fc.nat({ max: 129 }), fc.constantFrom('0', 'f', '1')).map(
    ([at, c]): EvmMutation => ({
      field: `signature[${at}]`,
      change: (p) => withSig(p, `${p.payload.signature.slice(0, 2 + at)}${c}${p.payload.signature.slice(3 + at)}`),
    }),
  ),
  fc.constantFrom<EvmMutation>(
    { field: 'signature malleated', change: (p) => withSig(p, malleate(p.payload.signature)) },
    {
      field: 'signature v as 0/1',
      change: (p) => withSig(p, `${p.payload.signature.slice(0, -2)}${hexByte(Number.parseInt(p.payload.signature.slice(-2), 16) - 27)}`),
    },
    { field: 'signature truncated', change: (p) => withSig(p, p.payload.signature.slice(0, 130)) },
    { field: 'signature extended', change: (p) => withSig(p, `${p.payload.signature}00`) },
    { field: 'signature empty', change: (p) => withSig(p, '0x') },
  ),
  fc
    .tuple(fc.constantFrom('amount', 'payTo', 'network', 'asset', 'scheme', 'maxTimeoutSeconds', 'extra'), fc.jsonValue({ maxDepth: 1 }))
    .map(([key, value]): EvmMutation => ({ field: `accepted.${key}`, change: (p) => ({ ...p, accepted: { ...p.accepted, [key]: value } }) })),
  fc.constantFrom<EvmMutation>(
    { field: 'x402Version 1', change: (p) => ({ ...p, x402Version: 1 }) },
    { field: 'resource elsewhere', change: (p) => ({ ...p, resource: { url: 'http://example.invalid/v1/epoch' } }) },
  ),
);

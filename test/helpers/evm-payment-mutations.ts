/**
 * Hostile Base `exact` payments for the money properties (test/adversarial/payment-properties): the
 * official client's EIP-3009 authorization changed in any field, its signature bytes included, or
 * the outer payment's fields; an authorization field may be signed again by the payer.
 */
import fc from 'fast-check';
import { evmAccountFromKey, type EvmHexKey } from '../../src/chain/keys/evm-key-file.ts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../src/chain/evm/evm-typed-data.ts';
import type { EvmAuthorization } from '../../src/x402/exact-evm/evm-verify.ts';

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
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
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

/**
 * Differential check of our Base exact verifier (off-chain checks in evm-verify.ts + the
 * relayer settler's chain reads) against the reference facilitator of @x402/evm (its
 * ExactEvmScheme over a viem client of the local EVM, EDR): the same payloads, judged by both,
 * must get the same verdict and, when invalid, the same reason.
 *
 * The reference diagnoses failures through Multicall3 `tryAggregate`, which runs on chain: the
 * local EVM has Multicall3 at its canonical address (packages/localnet/contracts/Multicall3.sol).
 *
 * One deliberate difference, pinned below: the high-s (malleable) twin of a valid signature. Both
 * refuse it; we name the signature (`invalid_exact_evm_signature`, checked before recovery, as
 * FiatToken's ECRecover refuses high s), the reference passes it off chain and reports the
 * token's revert in simulation (`invalid_exact_evm_transaction_simulation_failed`).
 *
 * Found on the way: the local EVM answered a reverted eth_call with the revert bytes as a result
 * (EDR `bailOnCallFailure: false`), so any client reading it took a revert for success; it now
 * answers the JSON-RPC error real Base nodes give.
 */
import { ExactEvmScheme as ReferenceFacilitator } from '@x402/evm/exact/facilitator';
import { ExactEvmScheme as OfficialClient } from '@x402/evm/exact/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../src/chain/evm/evm-typed-data.ts';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey, type EvmHexKey } from '../../src/chain/keys/evm-key-file.ts';
import { type LocalEvm, startLocalEvm } from '@solana-x402-intel/localnet';
import { startEvmExactScheme } from '../../src/x402/exact-evm/evm-exact-setup.ts';
import type { ExactScheme } from '../../src/x402/types/exact-scheme.ts';
import type { PaymentPayload, PaymentRequirements } from '../../src/x402/types/x402-types.ts';
import { referenceEvmSigner } from '../helpers/evm-reference-signer.ts';

const BASE = 'eip155:8453';
const PRICE = 10_000n;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const signal = new AbortController().signal;

let evm: LocalEvm;
let ours: ExactScheme;
let reference: ReferenceFacilitator;
let terms: PaymentRequirements;
const payerKey = generateEvmKey();
const payer = evmAccountFromKey(payerKey);
const poorKey = generateEvmKey();
const payTo = evmAddressOfKey(generateEvmKey());

interface AuthorizationOverrides {
  readonly key?: EvmHexKey;
  readonly from?: string;
  readonly to?: string;
  readonly value?: bigint;
  readonly validAfter?: bigint;
  readonly validBefore?: bigint;
  readonly nonce?: `0x${string}`;
  readonly domain?: Partial<{ name: string; version: string; chainId: number; verifyingContract: string }>;
}

/** An EIP-3009 payload signed by hand, for the fields the official client never varies. */
async function signedByHand(o: AuthorizationOverrides = {}): Promise<Record<string, unknown>> {
  const account = evmAccountFromKey(o.key ?? payerKey);
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = {
    from: (o.from ?? account.address) as `0x${string}`,
    to: (o.to ?? payTo) as `0x${string}`,
    value: o.value ?? PRICE,
    validAfter: o.validAfter ?? now - 600n,
    validBefore: o.validBefore ?? now + 60n,
    nonce: o.nonce ?? (`0x${randomBytes(32).toString('hex')}` as `0x${string}`),
  };
  const domain = { name: evm.name, version: evm.version, chainId: 8453, verifyingContract: evm.usdcAddress as `0x${string}`, ...o.domain } as {
    name: string;
    version: string;
    chainId: number;
    verifyingContract: `0x${string}`;
  };
  const signature = await account.signTypedData({
    domain,
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  const text = (n: bigint) => n.toString();
  return {
    signature,
    authorization: {
      ...authorization,
      value: text(authorization.value),
      validAfter: text(authorization.validAfter),
      validBefore: text(authorization.validBefore),
    },
  };
}

/** A payload made by the official client for `signed` terms (defaults: the route's). */
async function official(signed: Partial<PaymentRequirements> = {}, key = payerKey): Promise<Record<string, unknown>> {
  const requirements = { ...terms, ...signed, extra: { ...terms.extra, ...signed.extra } };
  const client = new OfficialClient(evmAccountFromKey(key));
  const created = await client.createPaymentPayload(2, requirements as Parameters<typeof client.createPaymentPayload>[1]);
  return created.payload as Record<string, unknown>;
}

const wrap = (payload: Record<string, unknown>, accepted: PaymentRequirements = terms): PaymentPayload => ({ x402Version: 2, accepted, payload });

function flipSignatureByte(payload: Record<string, unknown>, hexOffset: number): Record<string, unknown> {
  const sig = String(payload.signature);
  const i = 2 + hexOffset;
  const flipped = (Number.parseInt(sig[i]!, 16) ^ 0x8).toString(16);
  return { ...payload, signature: `${sig.slice(0, i)}${flipped}${sig.slice(i + 1)}` };
}

const withAuth = (payload: Record<string, unknown>, patch: Record<string, string>) => ({
  ...payload,
  authorization: { ...(payload.authorization as object), ...patch },
});

beforeAll(async () => {
  evm = await startLocalEvm({ host: '127.0.0.1', port: 0, seed: 'evm-differential' });
  terms = {
    scheme: 'exact',
    network: BASE,
    amount: String(PRICE),
    asset: evm.usdcAddress,
    payTo,
    maxTimeoutSeconds: 60,
    extra: { name: evm.name, version: evm.version },
  };
  ours = await startEvmExactScheme({
    asset: evm.usdcAddress,
    name: evm.name,
    version: evm.version,
    settlement: { kind: 'relayer', rpcUrl: evm.url, relayerKey: evm.relayerKey as EvmHexKey },
  });
  reference = new ReferenceFacilitator(referenceEvmSigner(evm.url, evm.relayerKey as EvmHexKey));
  await evm.fundUsdc(payer.address, 1_000_000n);
  await evm.fundUsdc(evmAddressOfKey(poorKey), PRICE - 1n);
});
afterAll(async () => {
  await evm?.close();
});

interface Case {
  readonly name: string;
  readonly payload: () => Promise<PaymentPayload>;
  readonly requirements?: () => PaymentRequirements;
  /** The reason both must give; null for a valid payment. */
  readonly reason: string | null;
}

const later = () => BigInt(Math.floor(Date.now() / 1000));
const CASES: readonly Case[] = [
  { name: 'valid: the official client', payload: async () => wrap(await official()), reason: null },
  { name: 'valid: signed by hand, validAfter 0', payload: async () => wrap(await signedByHand({ validAfter: 0n })), reason: null },
  { name: 'valid: authorization.to in lower case', payload: async () => wrap(await signedByHand({ to: payTo.toLowerCase() })), reason: null },
  { name: 'valid: validBefore a day ahead', payload: async () => wrap(await signedByHand({ validBefore: later() + 86_400n })), reason: null },
  {
    name: 'amount one unit short',
    payload: async () => wrap(await official({ amount: String(PRICE - 1n) })),
    reason: 'invalid_exact_evm_payload_authorization_value_mismatch',
  },
  {
    name: 'amount one unit over',
    payload: async () => wrap(await official({ amount: String(PRICE + 1n) })),
    reason: 'invalid_exact_evm_payload_authorization_value_mismatch',
  },
  { name: 'amount zero', payload: async () => wrap(await signedByHand({ value: 0n })), reason: 'invalid_exact_evm_payload_authorization_value_mismatch' },
  {
    name: 'payTo of another address',
    payload: async () => wrap(await official({ payTo: evmAddressOfKey(generateEvmKey()) })),
    reason: 'invalid_exact_evm_recipient_mismatch',
  },
  {
    name: 'another asset (verifyingContract)',
    payload: async () => wrap(await official({ asset: evmAddressOfKey(generateEvmKey()) })),
    reason: 'invalid_exact_evm_signature',
  },
  {
    name: 'accepted on another network',
    payload: async () => wrap(await official({ network: 'eip155:84532' }), { ...terms, network: 'eip155:84532' }),
    reason: 'invalid_exact_evm_network_mismatch',
  },
  { name: 'signed for another chain id', payload: async () => wrap(await signedByHand({ domain: { chainId: 84532 } })), reason: 'invalid_exact_evm_signature' },
  { name: 'wrong EIP-712 name', payload: async () => wrap(await official({ extra: { name: 'USDC', version: '2' } })), reason: 'invalid_exact_evm_signature' },
  {
    name: 'wrong EIP-712 version',
    payload: async () => wrap(await official({ extra: { name: evm.name, version: '1' } })),
    reason: 'invalid_exact_evm_signature',
  },
  {
    name: 'validBefore already past',
    payload: async () => wrap(await signedByHand({ validBefore: later() - 10n })),
    reason: 'invalid_exact_evm_payload_authorization_valid_before',
  },
  {
    name: 'validBefore inside the 6 s settlement margin',
    payload: async () => wrap(await signedByHand({ validBefore: later() + 3n })),
    reason: 'invalid_exact_evm_payload_authorization_valid_before',
  },
  {
    name: 'validAfter an hour ahead',
    payload: async () => wrap(await signedByHand({ validAfter: later() + 3600n })),
    reason: 'invalid_exact_evm_payload_authorization_valid_after',
  },
  { name: 'one flipped byte of r', payload: async () => wrap(flipSignatureByte(await official(), 10)), reason: 'invalid_exact_evm_signature' },
  {
    name: 'a 64-byte compact (EIP-2098) signature',
    payload: async () => {
      const p = await official();
      return wrap({ ...p, signature: String(p.signature).slice(0, 130) });
    },
    reason: 'invalid_exact_evm_signature',
  },
  {
    name: 'v changed from 27/28 to the other',
    payload: async () => {
      const p = await official();
      const sig = String(p.signature);
      const v = sig.slice(130) === '1b' ? '1c' : '1b';
      return wrap({ ...p, signature: `${sig.slice(0, 130)}${v}` });
    },
    reason: 'invalid_exact_evm_signature',
  },
  {
    name: 'signed by another key for this from',
    payload: async () => wrap(await signedByHand({ key: generateEvmKey(), from: payer.address })),
    reason: 'invalid_exact_evm_signature',
  },
  {
    name: 'value raised after signing',
    payload: async () => wrap(withAuth(await official(), { value: String(PRICE * 10n) })),
    requirements: () => ({ ...terms, amount: String(PRICE * 10n) }),
    reason: 'invalid_exact_evm_signature',
  },
  {
    name: 'nonce changed after signing',
    payload: async () => wrap(withAuth(await official(), { nonce: `0x${randomBytes(32).toString('hex')}` })),
    reason: 'invalid_exact_evm_signature',
  },
  { name: 'payer without the funds', payload: async () => wrap(await official({}, poorKey)), reason: 'invalid_exact_evm_insufficient_balance' },
  {
    name: 'payer with no token account at all',
    payload: async () => wrap(await official({}, generateEvmKey())),
    reason: 'invalid_exact_evm_insufficient_balance',
  },
  {
    name: 'scheme other than exact',
    payload: async () => wrap(await official(), { ...terms, scheme: 'upto' } as unknown as PaymentRequirements),
    reason: 'invalid_exact_evm_scheme',
  },
  {
    name: 'terms without the EIP-712 domain',
    payload: async () => wrap(await official()),
    requirements: () => ({ ...terms, extra: {} }),
    reason: 'invalid_exact_evm_missing_eip712_domain',
  },
];

describe('our Base verifier and the @x402/evm reference facilitator agree', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const payment = await c.payload();
    const reqs = c.requirements ? c.requirements() : terms;
    const [mine, theirs] = await Promise.all([ours.verify(payment, reqs, signal), reference.verify(payment as never, reqs as never)]);
    expect({ valid: mine.isValid, reason: mine.invalidReason ?? null }).toEqual({ valid: theirs.isValid, reason: theirs.invalidReason ?? null });
    expect(mine.invalidReason ?? null).toBe(c.reason);
  });

  it('a nonce already used by one settlement: both refuse it as nonce_already_used', async () => {
    const payment = wrap(await official());
    expect((await ours.verify(payment, terms, signal)).isValid).toBe(true);
    expect(await ours.settle(payment, terms, signal)).toMatchObject({ success: true });
    const [mine, theirs] = await Promise.all([ours.verify(payment, terms, signal), reference.verify(payment as never, terms as never)]);
    expect({ valid: mine.isValid, reason: mine.invalidReason }).toEqual({ valid: theirs.isValid, reason: theirs.invalidReason });
    expect(mine.invalidReason).toBe('invalid_exact_evm_nonce_already_used');
    // The same nonce in a freshly signed authorization (other fields alike) is refused the same way.
    const auth = (payment.payload as { authorization: { nonce: `0x${string}` } }).authorization;
    const again = wrap(await signedByHand({ nonce: auth.nonce }));
    const [mine2, theirs2] = await Promise.all([ours.verify(again, terms, signal), reference.verify(again as never, terms as never)]);
    expect([mine2.invalidReason, theirs2.invalidReason]).toEqual(['invalid_exact_evm_nonce_already_used', 'invalid_exact_evm_nonce_already_used']);
  });

  it('the reference settles what we verified as valid (the relayer contract call is the same)', async () => {
    const payment = wrap(await official());
    expect((await ours.verify(payment, terms, signal)).isValid).toBe(true);
    const settled = await reference.settle(payment as never, terms as never);
    expect(settled).toMatchObject({ success: true, network: BASE });
    expect((await ours.verify(payment, terms, signal)).invalidReason).toBe('invalid_exact_evm_nonce_already_used');
  });
});

describe('the one deliberate difference: the reason for a malleable signature', () => {
  it('a high-s twin of a valid signature: we refuse the signature, the reference refuses in simulation', async () => {
    const p = await official();
    const sig = String(p.signature);
    const s = BigInt(`0x${sig.slice(66, 130)}`);
    const v = sig.slice(130) === '1b' ? '1c' : '1b';
    const twin = `${sig.slice(0, 66)}${(SECP256K1_N - s).toString(16).padStart(64, '0')}${v}`;
    const payment = wrap({ ...p, signature: twin });
    const [mine, theirs] = await Promise.all([ours.verify(payment, terms, signal), reference.verify(payment as never, terms as never)]);
    expect(mine).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_signature' });
    // The twin recovers the same signer, so the reference's off-chain check passes it; the token
    // then reverts "invalid signature 's' value" in the reference's simulation.
    expect(theirs).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_transaction_simulation_failed' });
    expect(theirs.invalidMessage).toMatch(/invalid signature 's' value/);
  });
});

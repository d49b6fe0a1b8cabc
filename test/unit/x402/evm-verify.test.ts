/**
 * The pure off-chain verifier of Base exact payments, on hand-signed EIP-3009 authorizations
 * (a viem account signs the typed data, the way the official client does), with a fixed clock.
 */
import { describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import { isCanonicalEcdsaSignature, TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../../src/chain/evm/evm-typed-data.ts';
import { evmReplayKey } from '../../../src/x402/exact-evm/evm-exact.ts';
import {
  EVM_SETTLE_MARGIN_SECONDS,
  evmChainIdOf,
  parseEvmExactPayload,
  verifyEvmExactOffchain,
  type EvmAuthorization,
  type EvmVerifyInput,
} from '../../../src/x402/exact-evm/evm-verify.ts';

const NOW = 1_750_000_000;
const ASSET = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const key = generateEvmKey();
const account = evmAccountFromKey(key);
const payTo = evmAddressOfKey(generateEvmKey());
const requirements = { scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: ASSET, payTo, extra: { name: 'USD Coin', version: '2' } };
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

async function signed(overrides: Partial<EvmAuthorization> = {}, chainId = 8453): Promise<{ signature: string; authorization: EvmAuthorization }> {
  const authorization: EvmAuthorization = {
    from: account.address,
    to: payTo,
    value: '10000',
    validAfter: '0',
    validBefore: String(NOW + 60),
    nonce: `0x${'ab'.repeat(32)}`,
    ...overrides,
  };
  const signature = await account.signTypedData({
    domain: { name: 'USD Coin', version: '2', chainId, verifyingContract: ASSET },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      ...authorization,
      from: authorization.from as `0x${string}`,
      to: authorization.to as `0x${string}`,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce as `0x${string}`,
    },
  });
  return { signature, authorization };
}

function input(payload: unknown, patch: Partial<EvmVerifyInput> = {}): EvmVerifyInput {
  return { payload, acceptedScheme: 'exact', acceptedNetwork: 'eip155:8453', requirements, nowSeconds: NOW, ...patch };
}

describe('verifyEvmExactOffchain', () => {
  it('accepts a correctly signed authorization and names the payer', async () => {
    expect(await verifyEvmExactOffchain(input(await signed()))).toEqual({ isValid: true, payer: account.address });
  });

  it('accepts lower-case addresses in the payload', async () => {
    const p = await signed();
    const lower = { ...p, authorization: { ...p.authorization, from: p.authorization.from.toLowerCase(), to: p.authorization.to.toLowerCase() } };
    expect((await verifyEvmExactOffchain(input(lower))).isValid).toBe(true);
  });

  it('enforces the validity window with the settlement margin', async () => {
    const atMargin = await signed({ validBefore: String(NOW + EVM_SETTLE_MARGIN_SECONDS) });
    expect((await verifyEvmExactOffchain(input(atMargin))).isValid).toBe(true);
    const inside = await signed({ validBefore: String(NOW + EVM_SETTLE_MARGIN_SECONDS - 1) });
    expect((await verifyEvmExactOffchain(input(inside))).invalidReason).toBe('invalid_exact_evm_payload_authorization_valid_before');
    const future = await signed({ validAfter: String(NOW + 1) });
    expect((await verifyEvmExactOffchain(input(future))).invalidReason).toBe('invalid_exact_evm_payload_authorization_valid_after');
    const now = await signed({ validAfter: String(NOW) });
    expect((await verifyEvmExactOffchain(input(now))).isValid).toBe(true);
  });

  it('checks terms in the reference order: scheme, domain, network, signature, recipient, time, value', async () => {
    const p = await signed();
    expect((await verifyEvmExactOffchain(input(p, { acceptedScheme: 'upto' }))).invalidReason).toBe('invalid_exact_evm_scheme');
    expect((await verifyEvmExactOffchain(input(p, { requirements: { ...requirements, extra: { name: 'USD Coin' } } }))).invalidReason).toBe(
      'invalid_exact_evm_missing_eip712_domain',
    );
    expect((await verifyEvmExactOffchain(input(p, { acceptedNetwork: 'eip155:1' }))).invalidReason).toBe('invalid_exact_evm_network_mismatch');
    expect((await verifyEvmExactOffchain(input(await signed({}, 1)))).invalidReason).toBe('invalid_exact_evm_signature');
    const wrongTo = await signed({ to: evmAddressOfKey(generateEvmKey()) });
    expect((await verifyEvmExactOffchain(input(wrongTo))).invalidReason).toBe('invalid_exact_evm_recipient_mismatch');
    const wrongValue = await signed({ value: '10001' });
    expect((await verifyEvmExactOffchain(input(wrongValue))).invalidReason).toBe('invalid_exact_evm_payload_authorization_value_mismatch');
    const stranger = { ...p, authorization: { ...p.authorization, from: evmAddressOfKey(generateEvmKey()) } };
    expect((await verifyEvmExactOffchain(input(stranger))).invalidReason).toBe('invalid_exact_evm_signature');
  });

  it('refuses the malleable high-s twin of a valid signature', async () => {
    const p = await signed();
    const sig = p.signature.slice(2);
    const s = BigInt(`0x${sig.slice(64, 128)}`);
    const v = Number.parseInt(sig.slice(128, 130), 16);
    const twin = `0x${sig.slice(0, 64)}${(SECP256K1_N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    expect(isCanonicalEcdsaSignature(p.signature)).toBe(true);
    expect(isCanonicalEcdsaSignature(twin)).toBe(false);
    expect((await verifyEvmExactOffchain(input({ ...p, signature: twin }))).invalidReason).toBe('invalid_exact_evm_signature');
  });

  it('answers malformed payloads with reasons, never throws', async () => {
    const p = await signed();
    const cases: Array<[unknown, string]> = [
      [null, 'invalid_payload'],
      [{ signature: p.signature }, 'invalid_payload'],
      [{ permit2Authorization: {}, signature: '0x' }, 'unsupported_payload_type'],
      [{ ...p, authorization: { ...p.authorization, from: 'nope' } }, 'invalid_payload'],
      [{ ...p, authorization: { ...p.authorization, value: '1e4' } }, 'invalid_exact_evm_authorization_value'],
      [{ ...p, authorization: { ...p.authorization, value: (1n << 256n).toString() } }, 'invalid_exact_evm_authorization_value'],
      [{ ...p, authorization: { ...p.authorization, validBefore: -1 } }, 'invalid_payload'],
      [{ ...p, authorization: { ...p.authorization, nonce: '0x12' } }, 'invalid_payload'],
      [{ ...p, signature: 42 }, 'invalid_exact_evm_failed_to_parse_signature'],
      [{ ...p, signature: '0x1234' }, 'invalid_exact_evm_signature'],
    ];
    for (const [payload, reason] of cases) expect((await verifyEvmExactOffchain(input(payload))).invalidReason, JSON.stringify(payload)).toBe(reason);
  });
});

describe('helpers', () => {
  it('parses CAIP-2 eip155 ids', () => {
    expect(evmChainIdOf('eip155:8453')).toBe(8453);
    expect(evmChainIdOf('eip155:0')).toBeNull();
    expect(evmChainIdOf('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBeNull();
  });

  it('builds the replay key from asset, authorizer and nonce, lower-cased', async () => {
    const p = await signed();
    const payment = { x402Version: 2 as const, accepted: { ...requirements, scheme: 'exact' as const, maxTimeoutSeconds: 60 }, payload: p };
    expect(evmReplayKey(payment)).toBe(`${ASSET}:${account.address}:${p.authorization.nonce}`.toLowerCase());
    expect(evmReplayKey({ ...payment, payload: { signature: '0x' } })).toBeNull();
    expect(parseEvmExactPayload(p).ok).toBe(true);
  });
});

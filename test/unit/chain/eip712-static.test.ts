/**
 * The hand-encoded EIP-712 digests and the native recovery of an EIP-3009 authorization against
 * viem's generic encoder and JavaScript recovery (an independent implementation over
 * @noble/curves), on random domains and messages; malformed members are refused, not hashed.
 */
import fc from 'fast-check';
import { hashTypedData, recoverTypedDataAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { evmAccountFromKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import { recoverTransferAuthorizer, TRANSFER_WITH_AUTHORIZATION_TYPES, transferAuthorizationDigest } from '../../../src/chain/evm/evm-typed-data.ts';

const MAX_UINT256 = (1n << 256n) - 1n;
const hexOf = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString('hex')}` as `0x${string}`);
const mixedCase = (hex: string) => `0x${[...hex.slice(2)].map((c, i) => (i % 3 === 0 ? c.toUpperCase() : c)).join('')}`;

const authorizationArb = fc.record({
  domain: fc.record({
    name: fc.string({ unit: 'grapheme', maxLength: 40 }),
    version: fc.string({ maxLength: 8 }),
    chainId: fc.integer({ min: 1, max: 2 ** 40 }),
    verifyingContract: hexOf(20),
  }),
  from: hexOf(20),
  to: hexOf(20),
  value: fc.bigInt({ min: 0n, max: MAX_UINT256 }),
  validAfter: fc.bigInt({ min: 0n, max: MAX_UINT256 }),
  validBefore: fc.bigInt({ min: 0n, max: MAX_UINT256 }),
  nonce: hexOf(32),
});

type Authorization = typeof authorizationArb extends fc.Arbitrary<infer T> ? T : never;

function viewOf(a: Authorization) {
  return {
    domain: a.domain,
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization' as const,
    message: { from: a.from, to: a.to, value: a.value, validAfter: a.validAfter, validBefore: a.validBefore, nonce: a.nonce },
  };
}

describe('EIP-712 static structs by hand', () => {
  it("equals viem's hashTypedData for random TransferWithAuthorization domains and messages", () => {
    fc.assert(
      fc.property(authorizationArb, (a) => {
        const ours = `0x${transferAuthorizationDigest(a).toString('hex')}`;
        expect(ours).toBe(hashTypedData(viewOf(a)));
        // Address case does not change the digest (the words are bytes).
        const mixed = { ...a, from: mixedCase(a.from), domain: { ...a.domain, verifyingContract: mixedCase(a.domain.verifyingContract) } };
        expect(`0x${transferAuthorizationDigest(mixed).toString('hex')}`).toBe(ours);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a value over uint256, a short nonce or an address that is not 20 bytes', () => {
    const a = fc.sample(authorizationArb, { numRuns: 1, seed: 7 })[0]!;
    expect(() => transferAuthorizationDigest({ ...a, value: MAX_UINT256 + 1n })).toThrow();
    expect(() => transferAuthorizationDigest({ ...a, nonce: a.nonce.slice(0, 64) })).toThrow();
    expect(() => transferAuthorizationDigest({ ...a, to: `${a.to}00` })).toThrow();
    expect(() => transferAuthorizationDigest({ ...a, from: `0x${'zz'.repeat(20)}` })).toThrow();
  });

  it('recovers the signer viem recovers, for signatures by random keys; a changed member recovers someone else', async () => {
    const samples = fc.sample(authorizationArb, { numRuns: 12, seed: 11 });
    for (const a of samples) {
      const account = evmAccountFromKey(generateEvmKey());
      const signature = await account.signTypedData({ ...viewOf(a), message: { ...viewOf(a).message, from: account.address } });
      const input = { ...a, from: account.address, signature };
      const reference = await recoverTypedDataAddress({ ...viewOf(input), signature });
      expect(reference).toBe(account.address);
      expect(await recoverTransferAuthorizer(input)).toBe(account.address.toLowerCase());
      const other = await recoverTransferAuthorizer({ ...input, value: input.value === 0n ? 1n : input.value - 1n });
      expect(other).not.toBe(account.address.toLowerCase());
    }
  });

  it('refuses a high-s twin and a malformed member without throwing', async () => {
    const a = fc.sample(authorizationArb, { numRuns: 1, seed: 3 })[0]!;
    const account = evmAccountFromKey(generateEvmKey());
    const signature = await account.signTypedData({ ...viewOf(a), message: { ...viewOf(a).message, from: account.address } });
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const v = Number.parseInt(signature.slice(130), 16);
    const twin = `${signature.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    expect(await recoverTransferAuthorizer({ ...a, from: account.address, signature: twin })).toBeNull();
    expect(await recoverTransferAuthorizer({ ...a, from: account.address, nonce: '0x12', signature })).toBeNull();
  });
});

/**
 * The relayer's native transaction signature against viem's own local account (JavaScript Keccak
 * and @noble/curves): the same serialized bytes for random legacy, EIP-2930 and EIP-1559
 * transactions, the same hash, and no native answer for a type it does not sign.
 */
import fc from 'fast-check';
import { keccak256, type TransactionSerializable } from 'viem';
import { describe, expect, it } from 'vitest';
import { signTransactionNative, transactionHashOf } from '../../../src/chain/evm/transaction-signature.ts';
import { evmAccountFromKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';

const hexOf = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => `0x${Buffer.from(b).toString('hex')}` as `0x${string}`);
const base = fc.record({
  chainId: fc.integer({ min: 1, max: 2 ** 32 }),
  to: hexOf(20, 20),
  data: hexOf(0, 600),
  gas: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
  nonce: fc.integer({ min: 0, max: 2 ** 32 }),
  value: fc.bigInt({ min: 0n, max: 10n ** 24n }),
});
const txArb: fc.Arbitrary<TransactionSerializable> = fc.oneof(
  base.chain((b) => fc.record({ gasPrice: fc.bigInt({ min: 1n, max: 10n ** 12n }) }).map((f) => ({ ...b, ...f, type: 'legacy' as const }))),
  base.chain((b) => fc.record({ gasPrice: fc.bigInt({ min: 1n, max: 10n ** 12n }) }).map((f) => ({ ...b, ...f, type: 'eip2930' as const, accessList: [] }))),
  base.chain((b) =>
    fc
      .record({ maxFeePerGas: fc.bigInt({ min: 1_000n, max: 10n ** 12n }), maxPriorityFeePerGas: fc.bigInt({ min: 0n, max: 1_000n }) })
      .map((f) => ({ ...b, ...f, type: 'eip1559' as const })),
  ),
);

describe('native transaction signature', () => {
  const key = generateEvmKey();
  const account = evmAccountFromKey(key);
  const secret = Buffer.from(key.slice(2), 'hex');

  it("signs to viem's local account's bytes, and hashes as viem does", async () => {
    await fc.assert(
      fc.asyncProperty(txArb, async (tx) => {
        const native = signTransactionNative(tx, secret);
        expect(native).toBe(await account.signTransaction(tx));
        expect(transactionHashOf(native!)).toBe(keccak256(native!));
      }),
      { numRuns: 60 },
    );
  });

  it('leaves a transaction without a type, or of another type, to the viem account', () => {
    const tx = { chainId: 8453, to: `0x${'11'.repeat(20)}`, gas: 21_000n, nonce: 0, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n } as const;
    expect(signTransactionNative(tx, secret)).toBeNull();
    expect(signTransactionNative({ ...tx, type: 'eip7702', authorizationList: [] }, secret)).toBeNull();
  });
});

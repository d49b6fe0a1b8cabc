/**
 * The payer's side of a verified payment (src/x402/exact-svm/svm-source-read.ts): the token amount of an
 * account's data, the source's balance before the payment from the simulation's account, the
 * transfer's source, amount and authority.
 */
import { describe, expect, it } from 'vitest';
import type { WireTransaction } from '../../src/chain/svm-wire.ts';
import { readSourceBalance, sourceBalanceBefore, tokenAmountOf, transferOf } from '../../src/x402/exact-svm/svm-source-read.ts';

function tokenAccount(amount: bigint, bytes = 165): Uint8Array {
  const data = new Uint8Array(bytes);
  Buffer.from(data.buffer).writeBigUInt64LE(amount, 64);
  return data;
}

describe('svm-source-read', () => {
  it('reads the amount at byte 64 of a token account (Token and Token-2022 alike); not a token account: null', () => {
    expect(tokenAmountOf(tokenAccount(1234n))).toBe(1234n);
    expect(tokenAmountOf(tokenAccount(7n, 182))).toBe(7n);
    expect(tokenAmountOf(new Uint8Array(71))).toBeNull();
    expect(tokenAmountOf(null)).toBeNull();
  });

  it('adds the amount moved back to what the simulation left, unless the transfer went to the same account', () => {
    expect(sourceBalanceBefore(tokenAccount(0n), { source: 'S', destination: 'D' }, 1000n)).toBe(1000n);
    expect(sourceBalanceBefore(tokenAccount(500n), { source: 'S', destination: 'S' }, 1000n)).toBe(500n);
    expect(sourceBalanceBefore(null, { source: 'S', destination: 'D' }, 1000n)).toBeNull();
  });

  it('names the source, amount and authority of the third instruction', () => {
    const data = Uint8Array.from([12, ...Buffer.from([0xe8, 0x03, 0, 0, 0, 0, 0, 0]), 6]);
    const tx = {
      staticAccounts: ['Fee', 'Payer', 'Source', 'Mint', 'Dest', 'Token'],
      instructions: [
        { programIndex: 5, accountIndices: [], data: new Uint8Array(5) },
        { programIndex: 5, accountIndices: [], data: new Uint8Array(9) },
        { programIndex: 5, accountIndices: [2, 3, 4, 1], data },
      ],
    } as unknown as WireTransaction;
    expect(transferOf(tx)).toEqual({ source: 'Source', amount: 1000n, payer: 'Payer' });
  });

  it('reads the balance from the chain when verification left none', async () => {
    const rpc = { getAccountInfo: async () => ({ owner: 'Token', lamports: 1n, data: tokenAccount(42n) }) };
    expect(await readSourceBalance(rpc, 'Source', new AbortController().signal)).toBe(42n);
    expect(await readSourceBalance({ getAccountInfo: async () => null }, 'Source', new AbortController().signal)).toBeNull();
  });
});

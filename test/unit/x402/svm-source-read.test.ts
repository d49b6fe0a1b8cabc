/**
 * The payer's side of a verified payment (src/x402/exact-svm/svm-source-read.ts): the token amount of an
 * account's data, verification's one chain read of the source (its program, mint, state and
 * balance against the price), the transfer's source, amount and authority.
 */
import { describe, expect, it } from 'vitest';
import { decodeBase58 } from '../../../src/chain/solana/base58.ts';
import type { WireTransaction } from '../../../src/chain/solana/svm-wire.ts';
import { checkSource, readSourceBalance, tokenAmountOf, transferOf } from '../../../src/x402/exact-svm/svm-source-read.ts';

const MINT = 'So11111111111111111111111111111111111111112';

function tokenAccount(amount: bigint, bytes = 165, state = 1): Uint8Array {
  const data = new Uint8Array(bytes);
  Buffer.from(data.buffer).writeBigUInt64LE(amount, 64);
  data.set(decodeBase58(MINT)!, 0);
  data[108] = state;
  return data;
}

describe('svm-source-read', () => {
  it('reads the amount at byte 64 of a token account (Token and Token-2022 alike); not a token account: null', () => {
    expect(tokenAmountOf(tokenAccount(1234n))).toBe(1234n);
    expect(tokenAmountOf(tokenAccount(7n, 182))).toBe(7n);
    expect(tokenAmountOf(new Uint8Array(71))).toBeNull();
    expect(tokenAmountOf(null)).toBeNull();
  });

  it('checks the source with one read: a token account of the mint, initialized, not frozen, holding the price', async () => {
    const signal = new AbortController().signal;
    const source = { address: 'Source', mint: MINT, amount: 1000n, owners: ['Token'] };
    const check = (account: { owner: string; data: Uint8Array } | null) =>
      checkSource({ getAccountInfo: async () => account && { ...account, lamports: 1n } }, source, signal);
    expect(await check({ owner: 'Token', data: tokenAccount(1000n) })).toEqual({ ok: true, balance: 1000n });
    expect(await check({ owner: 'Token', data: tokenAccount(999n) })).toMatchObject({ ok: false, message: expect.stringMatching(/^insufficient funds/) });
    expect(await check({ owner: 'Token', data: tokenAccount(5000n, 165, 2) })).toMatchObject({ ok: false, message: expect.stringContaining('frozen') });
    expect(await check({ owner: 'Other', data: tokenAccount(5000n) })).toMatchObject({ ok: false, message: expect.stringContaining('not a token account') });
    expect(await check({ owner: 'Token', data: tokenAccount(5000n, 100) })).toMatchObject({ ok: false });
    expect(await check(null)).toMatchObject({ ok: false, message: expect.stringContaining('does not exist') });
    const other = tokenAccount(5000n);
    other.fill(7, 0, 32);
    expect(await check({ owner: 'Token', data: other })).toMatchObject({ ok: false, message: expect.stringContaining('another mint') });
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

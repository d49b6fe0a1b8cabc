import { describe, expect, it } from 'vitest';
import { createChainIndexes, PRIORITIZATION_FEE_SLOTS } from '../../src/chain/chain-indexes.ts';
import type { ExecutedTransaction } from '../../src/chain/types.ts';

function tx(signature: string, slot: bigint, keys: string[], index = 0): ExecutedTransaction {
  return {
    signature,
    signatures: [signature],
    slot,
    index,
    isVote: false,
    err: null,
    fee: 5000n,
    computeUnitsConsumed: 1n,
    logs: [],
    header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 0 },
    accountKeys: keys,
    recentBlockhash: 'x',
    instructions: [],
    innerInstructions: [],
    preBalances: [],
    postBalances: [],
    preTokenBalances: [],
    postTokenBalances: [],
    wire: new Uint8Array(),
    blockTime: 0,
  };
}

describe('chain indexes', () => {
  it('pages signatures newest first with before/until and hides slots above the commitment', () => {
    const ix = createChainIndexes({ maxTransactions: 100, maxSignaturesPerAddress: 100 });
    for (let i = 0; i < 6; i++) ix.recordTransaction(tx(`s${i}`, BigInt(10 + i), ['A', 'B']), ['A'], 0n);
    const all = (q: Partial<Parameters<typeof ix.signaturesForAddress>[1]>) =>
      ix.signaturesForAddress('A', { limit: 100, maxSlot: 100n, ...q }).map((e) => e.signature);
    expect(all({})).toEqual(['s5', 's4', 's3', 's2', 's1', 's0']);
    expect(all({ limit: 2, before: 's4' })).toEqual(['s3', 's2']);
    expect(all({ until: 's2' })).toEqual(['s5', 's4', 's3']);
    expect(all({ maxSlot: 12n })).toEqual(['s2', 's1', 's0']);
    expect(all({ before: 'unknown' })).toEqual([]);
  });

  it('caps signatures per address and transaction bodies', () => {
    const ix = createChainIndexes({ maxTransactions: 3, maxSignaturesPerAddress: 4 });
    for (let i = 0; i < 20; i++) ix.recordTransaction(tx(`s${i}`, BigInt(i), ['A']), [], 0n);
    expect(ix.signaturesForAddress('A', { limit: 1000, maxSlot: 100n }).map((e) => e.signature)).toEqual(['s19', 's18', 's17', 's16']);
    expect(ix.transaction('s19')).toBeDefined();
    expect(ix.transaction('s16')).toBeUndefined();
  });

  it('computes Agave prioritization fees: slot minimum, raised by per-account minimums', () => {
    const ix = createChainIndexes({ maxTransactions: 100, maxSignaturesPerAddress: 100 });
    ix.openSlot(1n);
    ix.recordTransaction(tx('a', 1n, ['P', 'X']), ['P', 'X'], 100n);
    ix.recordTransaction(tx('b', 1n, ['P', 'Y']), ['P', 'Y'], 50n);
    ix.openSlot(2n);
    expect(ix.prioritizationFees([], 10n)).toEqual([
      { slot: 1n, prioritizationFee: 50n },
      { slot: 2n, prioritizationFee: 0n },
    ]);
    expect(ix.prioritizationFees(['X'], 10n)[0]).toEqual({ slot: 1n, prioritizationFee: 100n });
    expect(ix.prioritizationFees(['Y', 'Z'], 10n)[0]).toEqual({ slot: 1n, prioritizationFee: 50n });
    expect(ix.prioritizationFees([], 1n)).toHaveLength(1);
    for (let s = 3n; s < 400n; s++) ix.openSlot(s);
    expect(ix.prioritizationFees([], 1000n)).toHaveLength(PRIORITIZATION_FEE_SLOTS);
  });

  it('moves token accounts between owner and mint sets', () => {
    const ix = createChainIndexes({ maxTransactions: 10, maxSignaturesPerAddress: 10 });
    ix.setTokenAccount('T', { mint: 'M', owner: 'O1', programId: 'P' });
    ix.setTokenAccount('T', { mint: 'M', owner: 'O2', programId: 'P' });
    expect(ix.tokenAccountsByOwner('O1')).toEqual([]);
    expect(ix.tokenAccountsByOwner('O2')).toEqual(['T']);
    expect(ix.tokenAccountCount('M')).toBe(1);
    ix.setTokenAccount('T', null);
    expect(ix.tokenAccountsByMint('M')).toEqual([]);
  });
});

describe('chain indexes: address cap', () => {
  it('drops the least recently active address beyond maxTrackedAddresses', () => {
    const ix = createChainIndexes({ maxTransactions: 10, maxSignaturesPerAddress: 10, maxTrackedAddresses: 2 });
    ix.recordTransaction(tx('a', 1n, ['A']), [], 0n);
    ix.recordTransaction(tx('b', 2n, ['B']), [], 0n);
    ix.recordTransaction(tx('c', 3n, ['A']), [], 0n);
    ix.recordTransaction(tx('d', 4n, ['C']), [], 0n);
    expect(ix.signaturesForAddress('B', { limit: 10, maxSlot: 10n })).toEqual([]);
    expect(ix.signaturesForAddress('A', { limit: 10, maxSlot: 10n }).map((e) => e.signature)).toEqual(['c', 'a']);
  });
});

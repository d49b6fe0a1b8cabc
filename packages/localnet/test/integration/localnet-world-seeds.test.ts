/**
 * Every seed builds a world. Regression: with seed `svm-differential` the PRNG drew the same
 * wallet transfer twice within one slot, which under one blockhash is the same transaction, and
 * world building failed with AlreadyProcessed. Each wallet's recorded history must be exactly what
 * the chain shows, with no signature twice.
 */
import { describe, expect, it } from 'vitest';
import { createLocalChain } from '../../src/chain/local-chain.ts';
import { buildWorld } from '../../src/world/world.ts';
import { EXTRA_WALLET_TXS } from '../../src/world/world-wallets.ts';

const SEEDS = ['svm-differential', 'test-1', 'test-seed', 'seed-a', 'seed-b', 'seed-c'];

describe('world building', () => {
  it.each(SEEDS)(
    'builds the world of seed %s with every wallet transaction landed once',
    async (seed) => {
      const chain = createLocalChain({ slotsPerEpoch: 32n, startUnixSeconds: 1_750_000_000 });
      const world = await buildWorld(chain, { seed });
      for (const band of ['heavy', 'active', 'fresh'] as const) {
        for (const w of world.wallets[band]) {
          // One airdrop plus the band's extra transactions sent by the wallet, plus transfers received.
          expect(w.signatures.length).toBeGreaterThanOrEqual(1 + EXTRA_WALLET_TXS[band]);
          expect(new Set(w.signatures).size).toBe(w.signatures.length);
          const onChain = chain.signaturesForAddress(w.address, { limit: 1000, commitment: 'finalized' }).map((e) => e.signature);
          expect(new Set(onChain)).toEqual(new Set(w.signatures));
        }
      }
    },
    120_000,
  );
});

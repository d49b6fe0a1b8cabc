/**
 * Mints for a sweep: copies of the localnet world's mints (the same account bytes, extensions and
 * authorities, and copies of their largest token accounts) at fresh addresses. The world holds a
 * few dozen mints and the service caches each mint's snapshot for 15 s, so a sweep of the world's
 * own mints would be answered from memory after the first pass; a sweep of distinct copies makes
 * every mint the chain reads and the analysis a real sweep makes.
 */
import { randomBytes } from 'node:crypto';
import type { Localnet } from '@solana-x402-intel/localnet';
import { decodeBase58, encodeBase58 } from '../../src/chain/solana/base58.ts';

/** Token accounts copied per mint: what getTokenLargestAccounts answers at most. */
const HOLDERS_PER_MINT = 20;
/** The first 32 bytes of an SPL token account are its mint. */
const MINT_FIELD_BYTES = 32;

const freshAddress = (): string => encodeBase58(new Uint8Array(randomBytes(32)));

/** The world mints worth copying: every one but the one too large to index (answered apart). */
function templates(net: Localnet): string[] {
  return [...net.world.mints.values()].map((m) => m.address).filter((a) => a !== net.world.largeHolderMint.mint);
}

/** Writes `count` copies of world mints (round robin) into the chain; returns their addresses. */
export function cloneWorldMints(net: Localnet, count: number): string[] {
  const from = templates(net);
  const made: string[] = [];
  for (let i = 0; i < count; i++) {
    const source = from[i % from.length]!;
    const account = net.chain.getAccount(source);
    if (!account) throw new Error(`world mint ${source} is not on chain`);
    const mint = freshAddress();
    net.chain.setAccount(mint, { lamports: account.lamports, data: account.data, owner: account.owner, executable: false });
    const mintBytes = decodeBase58(mint)!;
    const holders = [...net.world.mintsByAddress.get(source)!.holders].sort((a, b) => (b.amount > a.amount ? 1 : -1)).slice(0, HOLDERS_PER_MINT);
    for (const holding of holders) {
      const held = net.chain.getAccount(holding.address);
      if (!held) continue;
      const data = Uint8Array.from(held.data);
      data.set(mintBytes.subarray(0, MINT_FIELD_BYTES), 0);
      net.chain.setAccount(freshAddress(), { lamports: held.lamports, data, owner: held.owner, executable: false });
    }
    made.push(mint);
  }
  return made;
}

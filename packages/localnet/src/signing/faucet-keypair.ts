/**
 * The chain's faucet: a synchronous node:crypto key (the world's signer type), so airdrops are
 * real signed System transfers built synchronously (kit's signers are async; the chain core's
 * `airdrop` must be usable from synchronous world building).
 */
import { signerFromSeed, type WorldSigner } from './world-keys.ts';
import { buildSignedWire, transferSolIx } from './world-transactions.ts';

/** A synchronous ed25519 signer. */
export type SyncKeypair = WorldSigner;

const ED25519_SEED_BYTES = 32;

/** Derives the keypair of a 32-byte seed (deterministic: same seed, same faucet address). */
export function createSyncKeypair(seed: Uint8Array): SyncKeypair {
  if (seed.length !== ED25519_SEED_BYTES) throw new Error(`ed25519 seed must be ${ED25519_SEED_BYTES} bytes`);
  return signerFromSeed(seed);
}

/** A signed System transfer `from` -> `to` of `lamports`, as wire bytes. */
export function buildTransferWire(from: SyncKeypair, to: string, lamports: bigint, blockhash: string): Uint8Array {
  return buildSignedWire(from, [transferSolIx(from.address, to, lamports)], blockhash).wire;
}

/**
 * The chain's faucet: an ed25519 key held by node:crypto so airdrops are real signed System
 * transfers built and signed synchronously (kit's signers are async; the chain core's
 * `airdrop` must be usable from synchronous world building).
 */
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import {
  address as toAddress,
  appendTransactionMessageInstruction,
  compileTransactionMessage,
  createNoopSigner,
  createTransactionMessage,
  getCompiledTransactionMessageEncoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { toBase58 } from './token-layout.ts';

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);
const ED25519_SEED_BYTES = 32;

/** A synchronous ed25519 signer. */
export interface SyncKeypair {
  readonly address: string;
  sign(message: Uint8Array): Uint8Array;
}

/** Derives the keypair of a 32-byte seed (deterministic: same seed, same faucet address). */
export function createSyncKeypair(seed: Uint8Array): SyncKeypair {
  if (seed.length !== ED25519_SEED_BYTES) throw new Error(`ed25519 seed must be ${ED25519_SEED_BYTES} bytes`);
  const der = new Uint8Array(ED25519_PKCS8_PREFIX.length + seed.length);
  der.set(ED25519_PKCS8_PREFIX);
  der.set(seed, ED25519_PKCS8_PREFIX.length);
  const privateKey: KeyObject = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const address = toBase58(new Uint8Array(spki.subarray(spki.length - 32)));
  return { address, sign: (message) => new Uint8Array(sign(null, message, privateKey)) };
}

/** A signed System transfer `from` -> `to` of `lamports`, as wire bytes. */
export function buildTransferWire(from: SyncKeypair, to: string, lamports: bigint, blockhash: string): Uint8Array {
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(toAddress(from.address), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstruction(
      getTransferSolInstruction({ source: createNoopSigner(toAddress(from.address)), destination: toAddress(to), amount: lamports }),
      m,
    ),
  );
  const messageBytes = getCompiledTransactionMessageEncoder().encode(compileTransactionMessage(message));
  const tx = {
    messageBytes,
    signatures: { [from.address]: from.sign(Uint8Array.from(messageBytes)) as SignatureBytes },
  } as unknown as Transaction;
  return Uint8Array.from(getTransactionEncoder().encode(tx));
}

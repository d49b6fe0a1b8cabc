/**
 * The reference of the paid-call CPU goal: the signature work one paid call cannot avoid, done
 * with the very functions the service runs (the pool's ed25519 over node:crypto, the ledger's
 * SHA-256): one ed25519 verify of the payer's signature over the transaction message, two ed25519
 * signs (the fee payer's co-signature over that message, the receipt), and one SHA-256 over a
 * ledger entry. Measured in this process as process CPU time over many iterations.
 */
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { createEd25519Signer, verifyEd25519Batch } from '../../src/chain/keys/ed25519.ts';
import { sha256Hex } from '../../src/ledger/merkle-hash.ts';

/** Byte sizes of what a real paid call signs and hashes (read from a real call). */
export interface SignatureWorkSizes {
  readonly transactionMessage: number;
  readonly receipt: number;
  readonly ledgerEntry: number;
}

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** Iterations measured (after as many again to warm the code up). */
const ITERATIONS = 2_000;

/** CPU µs of one paid call's signature work, and of each part. */
export function measureSignatureWork(sizes: SignatureWorkSizes): Record<string, number> {
  const sign = createEd25519Signer(randomBytes(32));
  const message = randomBytes(sizes.transactionMessage);
  const payerSeed = randomBytes(32);
  const payerSign = createEd25519Signer(payerSeed);
  const payerKey = publicKeyOf(payerSeed);
  const check = { publicKey: payerKey, message, signature: payerSign(message) };
  const receipt = randomBytes(sizes.receipt);
  const entry = 'x'.repeat(sizes.ledgerEntry);
  const parts = {
    verify: () => verifyEd25519Batch([check]),
    cosign: () => sign(message),
    receiptSign: () => sign(receipt),
    ledgerSha256: () => sha256Hex(entry),
  };
  const perPart: Record<string, number> = {};
  for (const [name, run] of Object.entries(parts)) perPart[`${name}Us`] = cpuPerRun(run);
  const totalUs = Object.values(perPart).reduce((a, b) => a + b, 0);
  return { ...perPart, totalUs };
}

function cpuPerRun(run: () => unknown): number {
  for (let i = 0; i < ITERATIONS; i++) run();
  const before = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / ITERATIONS;
}

/** The raw 32-byte public key of an ed25519 seed (the tail of its SPKI DER). */
function publicKeyOf(seed: Uint8Array): Uint8Array {
  const pkcs8 = Buffer.concat([PKCS8_PREFIX, seed]);
  const spki = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(spki.length - 32));
}

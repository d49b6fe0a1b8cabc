/**
 * Signed tree heads (`/trust/checkpoint`, beyond the proofs of docs/contract.md#merkle-proofs): the
 * ledger size, both Merkle roots and the chain head at one moment, signed with the service
 * identity. A client that keeps two checkpoints and asks `/trust/consistency` between their sizes
 * detects a rewritten or forked ledger; a proof's tree size is authenticated only through a
 * checkpoint's root.
 *
 * canonicalCheckpoint = JSON.stringify of the unsigned part with keys in this order, no
 * whitespace: `{"schema","treeSize","rootHash":{"rfc6962","spec"},"chainHead","timestamp"}`.
 * Signature = ed25519 detached over its UTF-8 bytes, base58 in `signatureBase58`, like receipts.
 */
import { createEd25519Signer, verifyEd25519Batch } from '../chain/keys/ed25519.ts';
import { decodeBase58, encodeBase58 } from '../chain/solana/base58.ts';
import { ServiceError } from '../errors.ts';
import { isHexDigest } from '../ledger/merkle-hash.ts';
import type { VerifyResult } from '../ledger/merkle-verify.ts';

/** Signature scheme label, as in receipts (docs/contract.md#receipts). */
export const CHECKPOINT_SIGNATURE_SCHEME = 'ed25519-detached(utf8(canonicalCheckpoint))';
const SOLANA_SECRET_KEY_BYTES = 64;

/** The signed content of a checkpoint. */
export interface UnsignedCheckpoint {
  /** `<service>.checkpoint.v1`. */
  readonly schema: string;
  readonly treeSize: number;
  readonly rootHash: { readonly rfc6962: string; readonly spec: string };
  readonly chainHead: string;
  /** ISO 8601 UTC. */
  readonly timestamp: string;
}

/** A checkpoint with its signature. */
export interface SignedCheckpoint extends UnsignedCheckpoint {
  readonly signature: { readonly scheme: string; readonly signatureBase58: string; readonly signedBy: string };
}

/** What a checkpoint is made from (e.g. `ledger.head()`). */
export interface CheckpointHead {
  readonly treeSize: number;
  readonly merkleRoot: string;
  readonly merkleRootRfc6962: string;
  readonly chainHead: string;
}

/** Signs bytes; async so it can run in the worker pool later. */
export type SignBytes = (message: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** The canonical JSON of the unsigned part (fixed key order, whatever order `c` has). */
export function canonicalCheckpoint(c: UnsignedCheckpoint): string {
  return JSON.stringify({
    schema: c.schema,
    treeSize: c.treeSize,
    rootHash: { rfc6962: c.rootHash.rfc6962, spec: c.rootHash.spec },
    chainHead: c.chainHead,
    timestamp: c.timestamp,
  });
}

const signers = new WeakMap<Uint8Array, (message: Uint8Array) => Uint8Array>();

/**
 * ed25519 detached signature of `message` with a 64-byte Solana-layout secret key
 * (seed || public key), through the same node:crypto signer the worker pool runs.
 */
export function signEd25519(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
  if (secretKey.length !== SOLANA_SECRET_KEY_BYTES) throw new ServiceError('internal_error', 'signing key must be 64 bytes (seed || public key)');
  let signer = signers.get(secretKey);
  if (!signer) {
    signer = createEd25519Signer(secretKey.subarray(0, 32));
    signers.set(secretKey, signer);
  }
  return signer(message);
}

/** True when `signature` is a valid ed25519 signature of `message` by the 32-byte `publicKey`. */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return verifyEd25519Batch([{ publicKey, message, signature }])[0] === true;
}

/** Configuration of checkpoint signing. */
export interface CheckpointConfig {
  /** Service name; the schema is `<service>.checkpoint.v1`. */
  readonly service: string;
  /** Base58 public key of the signer (`signedBy`). */
  readonly publicKey: string;
  readonly sign: SignBytes;
}

/** Builds and signs the checkpoint of `head` at `now`. */
export async function createCheckpoint(config: Readonly<CheckpointConfig>, head: CheckpointHead, now: Date = new Date()): Promise<SignedCheckpoint> {
  const unsigned: UnsignedCheckpoint = {
    schema: `${config.service}.checkpoint.v1`,
    treeSize: head.treeSize,
    rootHash: { rfc6962: head.merkleRootRfc6962, spec: head.merkleRoot },
    chainHead: head.chainHead,
    timestamp: now.toISOString(),
  };
  const signature = await config.sign(Buffer.from(canonicalCheckpoint(unsigned), 'utf8'));
  return { ...unsigned, signature: { scheme: CHECKPOINT_SIGNATURE_SCHEME, signatureBase58: encodeBase58(signature), signedBy: config.publicKey } };
}

/** Verifies a checkpoint's fields and signature, and optionally that it was signed by `expectedSigner`. */
export function verifyCheckpoint(c: SignedCheckpoint, expectedSigner?: string): VerifyResult {
  if (!c || typeof c.schema !== 'string' || !Number.isSafeInteger(c.treeSize) || c.treeSize < 0)
    return { ok: false, reason: 'schema and treeSize are required' };
  if (!isHexDigest(c.rootHash?.rfc6962) || !isHexDigest(c.rootHash?.spec) || !isHexDigest(c.chainHead))
    return { ok: false, reason: 'roots and chainHead must be hex digests' };
  if (c.signature?.scheme !== CHECKPOINT_SIGNATURE_SCHEME) return { ok: false, reason: 'unknown signature scheme' };
  if (expectedSigner !== undefined && c.signature.signedBy !== expectedSigner) return { ok: false, reason: 'signedBy is not the published key' };
  const publicKey = decodeBase58(String(c.signature.signedBy));
  const signature = decodeBase58(String(c.signature.signatureBase58));
  if (!publicKey || !signature) return { ok: false, reason: 'signedBy and signatureBase58 must be base58' };
  const ok = verifyEd25519(publicKey, Buffer.from(canonicalCheckpoint(c), 'utf8'), signature);
  return ok ? { ok: true } : { ok: false, reason: 'signature does not verify' };
}

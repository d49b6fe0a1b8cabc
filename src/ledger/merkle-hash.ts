/**
 * The two hash rules of the ledger's Merkle tree. Both work over the same RFC 6962 tree shape;
 * they differ only in how a leaf and an interior node are hashed:
 * - `spec` (the simple rule of docs/contract.md#merkle-proofs): the leaf is the entry's
 *   `entrySha256` itself (no extra hashing) and a parent is SHA-256(left || right) over the raw
 *   32-byte digests (not their hex text).
 * - `rfc6962`: leaf = SHA-256(0x00 || data), node = SHA-256(0x01 || left || right), where the
 *   leaf data is the 32 raw bytes of `entrySha256`.
 * The empty tree hashes to SHA-256 of the empty string in both rules (RFC 6962 §2.1).
 */
import { hash } from 'node:crypto';
import { ServiceError } from '../errors.ts';

/** Length of a SHA-256 digest in bytes. */
export const HASH_BYTES = 32;
const HEX_DIGEST_RE = /^[0-9a-f]{64}$/;
const RFC6962_LEAF_PREFIX = 0x00;
const RFC6962_NODE_PREFIX = 0x01;

/** Names of the two hash rules. */
export type HashRule = 'spec' | 'rfc6962';

/** Hash functions of one rule; inputs and outputs are raw 32-byte digests. */
export interface TreeHasher {
  readonly rule: HashRule;
  /** Human- and machine-readable statement of the rule, returned with every proof. */
  readonly algorithm: string;
  leaf(data: Uint8Array): Uint8Array;
  node(left: Uint8Array, right: Uint8Array): Uint8Array;
  empty(): Uint8Array;
}

/** SHA-256 of the concatenation of `parts`, as a Buffer. */
export function sha256(...parts: readonly Uint8Array[]): Buffer {
  return hash('sha256', parts.length === 1 ? parts[0]! : Buffer.concat(parts), 'buffer');
}

/** SHA-256 of UTF-8 text, lowercase hex. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/** True when `text` is a lowercase hex SHA-256 digest (64 characters). */
export function isHexDigest(text: unknown): text is string {
  return typeof text === 'string' && HEX_DIGEST_RE.test(text);
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Raw bytes of a lowercase hex digest, or null when it is not one. */
export function fromHexDigest(text: unknown): Buffer | null {
  return isHexDigest(text) ? Buffer.from(text, 'hex') : null;
}

const EMPTY_ROOT = sha256(new Uint8Array(0));

function concatHash(prefix: number | null, a: Uint8Array, b?: Uint8Array): Buffer {
  const head = prefix === null ? 0 : 1;
  const buf = Buffer.allocUnsafe(head + a.length + (b?.length ?? 0));
  if (prefix !== null) buf[0] = prefix;
  buf.set(a, head);
  if (b) buf.set(b, head + a.length);
  return hash('sha256', buf, 'buffer');
}

/** The simple rule (docs/contract.md#merkle-proofs): leaf = entrySha256, parent = SHA-256(raw32(left) || raw32(right)). */
export const SPEC_HASHER: TreeHasher = Object.freeze({
  rule: 'spec',
  algorithm:
    'spec: leaf = entrySha256; step side=left: cur = SHA-256(raw32(step.hash) || raw32(cur)); ' +
    'side=right: cur = SHA-256(raw32(cur) || raw32(step.hash)); raw32 = the 32 bytes the hex encodes; ' +
    'tree shape RFC 6962 (split at the largest power of two below n, no duplication)',
  leaf(data: Uint8Array): Uint8Array {
    // The simple rule's leaf is the entry hash itself: anything else would not be a digest to chain on.
    if (data.length !== HASH_BYTES) throw new ServiceError('internal_error', 'spec leaf must be a 32-byte digest');
    return Buffer.from(data);
  },
  node: (left: Uint8Array, right: Uint8Array): Uint8Array => concatHash(null, left, right),
  empty: (): Uint8Array => Buffer.from(EMPTY_ROOT),
});

/** RFC 6962 §2.1 domain-separated hashing. */
export const RFC6962_HASHER: TreeHasher = Object.freeze({
  rule: 'rfc6962',
  algorithm:
    'rfc6962: leaf = SHA-256(0x00 || raw32(entrySha256)), node = SHA-256(0x01 || left || right); ' +
    'audit path per RFC 6962 §2.1.1, verification per RFC 9162 §2.1.3.2',
  leaf: (data: Uint8Array): Uint8Array => concatHash(RFC6962_LEAF_PREFIX, data),
  node: (left: Uint8Array, right: Uint8Array): Uint8Array => concatHash(RFC6962_NODE_PREFIX, left, right),
  empty: (): Uint8Array => Buffer.from(EMPTY_ROOT),
});

/** The hasher of a rule. */
export function hasherFor(rule: HashRule): TreeHasher {
  return rule === 'spec' ? SPEC_HASHER : RFC6962_HASHER;
}

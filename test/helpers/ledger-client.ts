/**
 * What a client of the public ledger does, written from docs/contract.md (#ledger-entries,
 * #merkle-proofs) and /trust/sir with node:crypto only (none of the service's trust code):
 * recompute each entry hash, follow the chain from genesis, rebuild the Merkle root (RFC 6962
 * shape, the simple rule's hashing) and apply its inclusion rule. Each function returns a problem
 * string, or null when everything holds.
 */
import { createHash } from 'node:crypto';

export const GENESIS = '0'.repeat(64);

/** A ledger entry as served by /ledger (payment or audit). */
export interface ServedEntry {
  readonly index: number;
  readonly prevHash: string;
  readonly entrySha256: string;
  readonly kind: string;
  readonly receiptSha256?: string;
  readonly [key: string]: unknown;
}

export const sha256Hex = (b: string | Uint8Array): string => createHash('sha256').update(b).digest('hex');
const sha256Raw = (...parts: Buffer[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();

/** Checks entries 0..n-1 (oldest first) as a chain from genesis; null when it holds. */
export function chainProblem(entries: readonly ServedEntry[]): string | null {
  let prev = GENESIS;
  for (const [i, e] of entries.entries()) {
    if (e.index !== i) return `entry ${i} has index ${e.index}`;
    const { entrySha256, ...rest } = e;
    if (sha256Hex(JSON.stringify(rest)) !== entrySha256) return `entry ${i}: entrySha256 is not the hash of the entry`;
    if (e.prevHash !== prev) return `entry ${i}: prevHash does not link to entry ${i - 1}`;
    prev = entrySha256;
  }
  return null;
}

/** MTH of hex leaves under the simple rule's hashing: split at the largest power of two below n. */
export function specMerkleRoot(leaves: readonly string[]): string {
  const rec = (lo: number, hi: number): Buffer => {
    if (hi - lo === 1) return Buffer.from(leaves[lo]!, 'hex');
    let k = 1;
    while (k * 2 < hi - lo) k *= 2;
    return sha256Raw(rec(lo, lo + k), rec(lo + k, hi));
  };
  return leaves.length === 0 ? sha256Hex('') : rec(0, leaves.length).toString('hex');
}

/** The simple rule (docs/contract.md#merkle-proofs): the root a proof leads to. */
export function specProofRoot(leaf: string, proof: ReadonlyArray<{ hash: string; side: string }>): string {
  let cur: Buffer = Buffer.from(leaf, 'hex');
  for (const s of proof) {
    const h = Buffer.from(s.hash, 'hex');
    cur = s.side === 'left' ? sha256Raw(h, cur) : sha256Raw(cur, h);
  }
  return cur.toString('hex');
}

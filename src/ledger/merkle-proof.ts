/**
 * The proof answers of the trust endpoints, as plain JSON-ready objects with lowercase hex
 * digests, built from a MerkleTree. The verifiers in merkle-verify.ts take the same shapes.
 */
import { toHex, type HashRule } from './merkle-hash.ts';
import type { MerkleTree } from './merkle-tree.ts';

/** The `/trust/proof` answer of docs/contract.md#merkle-proofs, plus `treeSize` and the `algorithm` statement. */
export interface SpecInclusionProof {
  readonly index: number;
  /** The leaf: the entry's `entrySha256`. */
  readonly leaf: string;
  readonly proof: ReadonlyArray<{ readonly hash: string; readonly side: 'left' | 'right' }>;
  readonly merkleRootSha256: string;
  readonly treeSize: number;
  readonly algorithm: string;
}

/** RFC 6962 audit path answer (`format=rfc6962`). */
export interface Rfc6962InclusionProof {
  readonly format: 'rfc6962';
  readonly index: number;
  readonly treeSize: number;
  /** Leaf data: the 32 raw bytes this hex encodes. */
  readonly entrySha256: string;
  /** SHA-256(0x00 || raw32(entrySha256)). */
  readonly leafHash: string;
  /** PATH(index, D[treeSize]) of RFC 6962 §2.1.1, bottom-up. */
  readonly auditPath: readonly string[];
  readonly rootHash: string;
  readonly algorithm: string;
}

/** Consistency proof between two sizes, RFC 6962 §2.1.2, under either hash rule. */
export interface ConsistencyProof {
  readonly format: HashRule;
  readonly fromSize: number;
  readonly toSize: number;
  readonly fromRoot: string;
  readonly toRoot: string;
  readonly proof: readonly string[];
  readonly algorithm: string;
}

/** Builds the contract-shaped inclusion proof of `index` at `treeSize` from a `spec`-rule tree. */
export function buildSpecInclusionProof(tree: MerkleTree, index: number, treeSize: number): SpecInclusionProof {
  const steps = tree.inclusionPath(index, treeSize);
  return {
    index,
    leaf: toHex(tree.leafHash(index)),
    proof: steps.map((s) => ({ hash: toHex(s.hash), side: s.side })),
    merkleRootSha256: toHex(tree.root(treeSize)),
    treeSize,
    algorithm: tree.hasher.algorithm,
  };
}

/** Builds the RFC 6962 inclusion proof of `index` at `treeSize` from an `rfc6962`-rule tree. */
export function buildRfc6962InclusionProof(tree: MerkleTree, index: number, treeSize: number, entrySha256: string): Rfc6962InclusionProof {
  return {
    format: 'rfc6962',
    index,
    treeSize,
    entrySha256,
    leafHash: toHex(tree.leafHash(index)),
    auditPath: tree.inclusionPath(index, treeSize).map((s) => toHex(s.hash)),
    rootHash: toHex(tree.root(treeSize)),
    algorithm: tree.hasher.algorithm,
  };
}

/** Builds the consistency proof from `fromSize` to `toSize` of `tree`. */
export function buildConsistencyProof(tree: MerkleTree, fromSize: number, toSize: number): ConsistencyProof {
  return {
    format: tree.hasher.rule,
    fromSize,
    toSize,
    fromRoot: toHex(tree.root(fromSize)),
    toRoot: toHex(tree.root(toSize)),
    proof: tree.consistencyProof(fromSize, toSize).map(toHex),
    algorithm: `${tree.hasher.algorithm}; consistency proof per RFC 6962 §2.1.2, verification per RFC 9162 §2.1.4.2`,
  };
}

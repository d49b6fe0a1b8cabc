/**
 * Incremental Merkle tree shaped as RFC 6962 §2.1: MTH(D[n]) splits at k, the largest power of
 * two below n; an odd node is never duplicated. Appending keeps only the frontier (the roots of
 * the perfect subtrees along the right border, at most log2(n) + 1 of them) in memory and writes
 * every completed perfect-subtree root to a NodeStore, so:
 * - append is O(log n) (amortised O(1) hashes and node writes),
 * - the root, an inclusion path or a consistency proof at ANY size <= current is assembled from
 *   O(log n) stored nodes: a range that arises in the RFC recursion always starts at a multiple
 *   of a power of two no smaller than itself, so it decomposes into at most log2(n) stored
 *   perfect subtrees, folded right to left.
 */
import { ServiceError } from '../errors.ts';
import type { TreeHasher } from './merkle-hash.ts';
import { createMemoryNodeStore, type NodeStore } from './merkle-node-store.ts';

/** One step of an inclusion path: the sibling hash and on which side of `cur` it sits. */
export interface InclusionStep {
  readonly hash: Uint8Array;
  readonly side: 'left' | 'right';
}

/** Configuration of a tree: its hash rule and where its nodes live (memory when absent). */
export interface MerkleTreeConfig {
  readonly hasher: TreeHasher;
  readonly store?: NodeStore;
}

/** An append-only Merkle tree with proofs at any earlier size. */
export interface MerkleTree {
  readonly hasher: TreeHasher;
  size(): number;
  /** Hashes `data` as a leaf (per the rule), appends it, returns its index. */
  append(data: Uint8Array): number;
  /** The leaf hash stored at `index`. */
  leafHash(index: number): Uint8Array;
  /**
   * Stored perfect-subtree roots [start, start + count) of `level` (node i covers leaves
   * [i·2^level, (i+1)·2^level)), concatenated: the hashes of a C2SP tile, read without hashing.
   */
  nodes(level: number, start: number, count: number): Uint8Array;
  /** MTH of the first `treeSize` leaves (default: all). */
  root(treeSize?: number): Uint8Array;
  /** RFC 6962 PATH(index, D[treeSize]), bottom-up, with the side of each sibling. */
  inclusionPath(index: number, treeSize?: number): InclusionStep[];
  /** RFC 6962 PROOF(fromSize, D[toSize]); empty when fromSize is 0 or equals toSize. */
  consistencyProof(fromSize: number, toSize?: number): Uint8Array[];
  flush(): void;
  close(): void;
}

interface FrontierNode {
  readonly level: number;
  readonly hash: Uint8Array;
}

/** Largest power of two strictly below n (n >= 2). Loops instead of bit tricks: n may exceed 2^31. */
export function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  return n === 1 || (n >= 2 && largestPowerOfTwoBelow(n) * 2 === n);
}

function log2Exact(n: number): number {
  let level = 0;
  for (let k = 1; k < n; k *= 2) level += 1;
  return level;
}

function badSize(what: string): ServiceError {
  return new ServiceError('internal_error', `merkle tree: ${what}`);
}

/** Creates an empty tree; nodes go to `config.store` (a fresh memory store when absent). */
export function createMerkleTree(config: Readonly<MerkleTreeConfig>): MerkleTree {
  const { hasher } = config;
  const store = config.store ?? createMemoryNodeStore();
  const frontier: FrontierNode[] = [];
  let size = 0;

  function rangeHash(start: number, end: number): Uint8Array {
    const n = end - start;
    if (isPowerOfTwo(n)) {
      // Invariant of the RFC recursion: a perfect range is aligned to its own size.
      if (start % n !== 0) throw badSize(`range [${start}, ${end}) is not aligned`);
      return store.read(log2Exact(n), start / n);
    }
    const k = largestPowerOfTwoBelow(n);
    return hasher.node(rangeHash(start, start + k), rangeHash(start + k, end));
  }

  function checkSize(treeSize: number): void {
    if (!Number.isSafeInteger(treeSize) || treeSize < 0 || treeSize > size) {
      throw badSize(`tree size ${treeSize} outside 0..${size}`);
    }
  }

  function path(index: number, start: number, end: number, out: InclusionStep[]): void {
    if (end - start === 1) return;
    const k = largestPowerOfTwoBelow(end - start);
    if (index < start + k) {
      path(index, start, start + k, out);
      out.push({ hash: rangeHash(start + k, end), side: 'right' });
    } else {
      path(index, start + k, end, out);
      out.push({ hash: rangeHash(start, start + k), side: 'left' });
    }
  }

  function subproof(m: number, start: number, end: number, complete: boolean, out: Uint8Array[]): void {
    const n = end - start;
    if (m === n) {
      if (!complete) out.push(rangeHash(start, end));
      return;
    }
    const k = largestPowerOfTwoBelow(n);
    if (m <= k) {
      subproof(m, start, start + k, complete, out);
      out.push(rangeHash(start + k, end));
    } else {
      subproof(m - k, start + k, end, false, out);
      out.push(rangeHash(start, start + k));
    }
  }

  return {
    hasher,
    size: () => size,
    append(data) {
      let hash = hasher.leaf(data);
      let level = 0;
      store.append(0, hash);
      // Merge equal-sized perfect subtrees on the right border; each merge completes a stored node.
      while (frontier.length > 0 && frontier[frontier.length - 1]!.level === level) {
        hash = hasher.node(frontier.pop()!.hash, hash);
        level += 1;
        store.append(level, hash);
      }
      frontier.push({ level, hash });
      size += 1;
      return size - 1;
    },
    leafHash(index) {
      if (!Number.isSafeInteger(index) || index < 0 || index >= size) throw badSize(`leaf ${index} outside 0..${size - 1}`);
      return store.read(0, index);
    },
    nodes: (level, start, count) => store.readRange(level, start, count),
    root(treeSize = size) {
      checkSize(treeSize);
      if (treeSize === 0) return hasher.empty();
      if (treeSize < size) return rangeHash(0, treeSize);
      let acc = frontier[frontier.length - 1]!.hash;
      for (let i = frontier.length - 2; i >= 0; i--) acc = hasher.node(frontier[i]!.hash, acc);
      return acc;
    },
    inclusionPath(index, treeSize = size) {
      checkSize(treeSize);
      if (!Number.isSafeInteger(index) || index < 0 || index >= treeSize) throw badSize(`leaf ${index} outside tree of ${treeSize}`);
      const out: InclusionStep[] = [];
      path(index, 0, treeSize, out);
      return out;
    },
    consistencyProof(fromSize, toSize = size) {
      checkSize(toSize);
      if (!Number.isSafeInteger(fromSize) || fromSize < 0 || fromSize > toSize) throw badSize(`consistency from ${fromSize} to ${toSize}`);
      const out: Uint8Array[] = [];
      if (fromSize > 0) subproof(fromSize, 0, toSize, true, out);
      return out;
    },
    flush: () => store.flush(),
    close: () => store.close(),
  };
}

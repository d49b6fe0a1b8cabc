/**
 * Pure verification of the proof answers (merkle-proof.ts shapes), for tests and `/trust/verify`.
 * Every input is treated as adversarial: a malformed field is a failed check with a reason, never
 * an exception. Index and tree size are bound to the path structure (RFC 9162 §2.1.3.2), so a
 * proof moved to another index or another tree size fails even under the simple rule, which by
 * itself only looks at `side`.
 */
import { fromHexDigest, hasherFor, RFC6962_HASHER, sha256, SPEC_HASHER, type HashRule } from './merkle-hash.ts';
import type { ConsistencyProof, Rfc6962InclusionProof, SpecInclusionProof } from './merkle-proof.ts';

/** Outcome of a verification: ok, or the first check that failed. */
export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const OK: VerifyResult = Object.freeze({ ok: true });
const fail = (reason: string): VerifyResult => ({ ok: false, reason });
const half = (n: number): number => Math.floor(n / 2);
const odd = (n: number): boolean => n % 2 === 1;

function isSize(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/**
 * Sides of the siblings of `index` in a tree of `treeSize`, bottom-up, following the loop of
 * RFC 9162 §2.1.3.2: the sibling is on the left when fn is odd or fn equals sn.
 */
export function inclusionSides(index: number, treeSize: number): Array<'left' | 'right'> {
  const sides: Array<'left' | 'right'> = [];
  let fn = index;
  let sn = treeSize - 1;
  while (sn > 0) {
    if (odd(fn) || fn === sn) {
      sides.push('left');
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sides.push('right');
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sides;
}

/**
 * Verifies a contract-shaped proof with the simple rule (docs/contract.md#merkle-proofs) over raw
 * 32-byte digests. When `treeSize` is present (our answers always carry it) the number of steps and
 * each side must also be those of `index` in a tree of `treeSize`; a bare answer without it gets
 * the rule alone.
 */
export function verifyInclusionSpec(answer: SpecInclusionProof): VerifyResult {
  const leaf = fromHexDigest(answer?.leaf);
  const root = fromHexDigest(answer?.merkleRootSha256);
  if (!leaf || !root) return fail('leaf and merkleRootSha256 must be 64 lowercase hex characters');
  if (!Array.isArray(answer.proof)) return fail('proof must be an array');
  if (answer.treeSize !== undefined) {
    if (!isSize(answer.index) || !isSize(answer.treeSize) || answer.index >= answer.treeSize) return fail('index must be below treeSize');
    const sides = inclusionSides(answer.index, answer.treeSize);
    if (sides.length !== answer.proof.length)
      return fail(`a proof of index ${answer.index} at size ${answer.treeSize} has ${sides.length} steps, not ${answer.proof.length}`);
    const wrong = sides.findIndex((side, i) => answer.proof[i]?.side !== side);
    if (wrong >= 0) return fail(`step ${wrong} side does not match index ${answer.index} at size ${answer.treeSize}`);
  }
  let cur: Uint8Array = leaf;
  for (const [i, step] of answer.proof.entries()) {
    const h = fromHexDigest(step?.hash);
    if (!h || (step.side !== 'left' && step.side !== 'right')) return fail(`step ${i} is malformed`);
    cur = step.side === 'left' ? sha256(h, cur) : sha256(cur, h);
  }
  return Buffer.from(cur).equals(root) ? OK : fail('computed root differs from merkleRootSha256');
}

function rootFromPath(rule: HashRule, index: number, treeSize: number, leafHash: Uint8Array, path: readonly Uint8Array[]): Uint8Array | null {
  const { node } = hasherFor(rule);
  if (index >= treeSize) return null;
  let fn = index;
  let sn = treeSize - 1;
  let r = leafHash;
  for (const p of path) {
    if (sn === 0) return null;
    if (odd(fn) || fn === sn) {
      r = node(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = node(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? r : null;
}

function decodeAll(hexes: unknown): Buffer[] | null {
  if (!Array.isArray(hexes)) return null;
  const out: Buffer[] = [];
  for (const h of hexes) {
    const b = fromHexDigest(h);
    if (!b) return null;
    out.push(b);
  }
  return out;
}

/** Verifies an RFC 6962 inclusion proof (RFC 9162 §2.1.3.2), including the leaf hash of entrySha256. */
export function verifyInclusionRfc6962(answer: Rfc6962InclusionProof): VerifyResult {
  const entry = fromHexDigest(answer?.entrySha256);
  const leafHash = fromHexDigest(answer?.leafHash);
  const root = fromHexDigest(answer?.rootHash);
  const path = decodeAll(answer?.auditPath);
  if (!entry || !leafHash || !root || !path) return fail('entrySha256, leafHash, rootHash and auditPath must be lowercase hex digests');
  if (!isSize(answer.index) || !isSize(answer.treeSize)) return fail('index and treeSize must be non-negative integers');
  if (!Buffer.from(RFC6962_HASHER.leaf(entry)).equals(leafHash)) return fail('leafHash is not SHA-256(0x00 || entrySha256)');
  const computed = rootFromPath('rfc6962', answer.index, answer.treeSize, leafHash, path);
  if (!computed) return fail(`audit path length does not fit index ${answer.index} at size ${answer.treeSize}`);
  return Buffer.from(computed).equals(root) ? OK : fail('computed root differs from rootHash');
}

/** Verifies a consistency proof (RFC 9162 §2.1.4.2) under the rule named by `format`. */
export function verifyConsistency(answer: ConsistencyProof): VerifyResult {
  if (answer?.format !== 'spec' && answer?.format !== 'rfc6962') return fail('format must be spec or rfc6962');
  const { node, empty } = answer.format === 'spec' ? SPEC_HASHER : RFC6962_HASHER;
  const fromRoot = fromHexDigest(answer.fromRoot);
  const toRoot = fromHexDigest(answer.toRoot);
  const proof = decodeAll(answer.proof);
  if (!fromRoot || !toRoot || !proof) return fail('roots and proof must be lowercase hex digests');
  const { fromSize: m, toSize: n } = answer;
  if (!isSize(m) || !isSize(n) || m > n) return fail('fromSize must not exceed toSize');
  if (m === n) return proof.length === 0 && fromRoot.equals(toRoot) ? OK : fail('equal sizes need an empty proof and equal roots');
  if (m === 0) return proof.length === 0 && fromRoot.equals(empty()) ? OK : fail('the empty tree needs an empty proof and the empty root');
  if (proof.length === 0) return fail('proof is empty');
  const path = largestPowerOfTwoAtMost(m) === m ? [fromRoot, ...proof] : proof;
  let fn = m - 1;
  let sn = n - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr: Uint8Array = path[0]!;
  let sr: Uint8Array = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return fail('proof is longer than the trees allow');
    if (odd(fn) || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = node(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return fail('proof is shorter than the trees need');
  if (!Buffer.from(fr).equals(fromRoot)) return fail('computed old root differs from fromRoot');
  return Buffer.from(sr).equals(toRoot) ? OK : fail('computed new root differs from toRoot');
}

function largestPowerOfTwoAtMost(n: number): number {
  let k = 1;
  while (k * 2 <= n) k *= 2;
  return k;
}

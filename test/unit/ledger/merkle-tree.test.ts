import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RFC6962_HASHER, SPEC_HASHER, toHex, type TreeHasher } from '../../../src/ledger/merkle-hash.ts';
import { createFileNodeStore } from '../../../src/ledger/merkle-node-store.ts';
import { buildConsistencyProof, buildRfc6962InclusionProof, buildSpecInclusionProof, type SpecInclusionProof } from '../../../src/ledger/merkle-proof.ts';
import { createMerkleTree, type MerkleTree } from '../../../src/ledger/merkle-tree.ts';
import { verifyConsistency, verifyInclusionRfc6962, verifyInclusionSpec } from '../../../src/ledger/merkle-verify.ts';

// RFC 6962 test data and MTH(D[n]) for n = 0..8 as published with Trillian's / CT's merkle tests
// (the same values appear in several independent implementations).
const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((h) => Buffer.from(h, 'hex'));
const CT_ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const CT_INCLUSION: Array<[number, number, string[]]> = [
  [0, 1, []],
  [
    0,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    5,
    8,
    [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [
    1,
    5,
    [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
];
const CT_CONSISTENCY: Array<[number, number, string[]]> = [
  [1, 1, []],
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [2, 5, ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
];

const sha = (...parts: Buffer[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();
const entryHash = (i: number): Buffer => sha(Buffer.from(`entry-${i}`));

// An independent, literal transcription of RFC 6962 §2.1 over leaf hashes (no node store).
function refK(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
function refMth(h: TreeHasher, leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return h.empty();
  if (leaves.length === 1) return leaves[0]!;
  const k = refK(leaves.length);
  return h.node(refMth(h, leaves.slice(0, k)), refMth(h, leaves.slice(k)));
}
function refPath(h: TreeHasher, m: number, d: Uint8Array[]): Uint8Array[] {
  if (d.length <= 1) return [];
  const k = refK(d.length);
  return m < k ? [...refPath(h, m, d.slice(0, k)), refMth(h, d.slice(k))] : [...refPath(h, m - k, d.slice(k)), refMth(h, d.slice(0, k))];
}
function refSub(h: TreeHasher, m: number, d: Uint8Array[], complete: boolean): Uint8Array[] {
  if (m === d.length) return complete ? [] : [refMth(h, d)];
  const k = refK(d.length);
  return m <= k ? [...refSub(h, m, d.slice(0, k), complete), refMth(h, d.slice(k))] : [...refSub(h, m - k, d.slice(k), false), refMth(h, d.slice(0, k))];
}

function treeOf(hasher: TreeHasher, n: number, tree?: MerkleTree): MerkleTree {
  const t = tree ?? createMerkleTree({ hasher });
  for (let i = t.size(); i < n; i++) t.append(hasher === SPEC_HASHER ? entryHash(i) : entryHash(i));
  return t;
}
const hexes = (xs: Uint8Array[]): string[] => xs.map(toHex);

describe('RFC 6962 known answers', () => {
  const tree = createMerkleTree({ hasher: RFC6962_HASHER });
  it('hashes the empty tree, leaves and nodes as published', () => {
    expect(toHex(tree.root())).toBe(CT_ROOTS[0]);
    expect(toHex(RFC6962_HASHER.leaf(Buffer.alloc(0)))).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    expect(toHex(RFC6962_HASHER.leaf(Buffer.from([0])))).toBe('96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7');
    const node = RFC6962_HASHER.node(RFC6962_HASHER.leaf(CT_LEAVES[0]!), RFC6962_HASHER.leaf(CT_LEAVES[1]!));
    expect(toHex(node)).toBe(CT_ROOTS[2]);
    expect(node).toEqual(sha(Buffer.from([1]), sha(Buffer.from([0])), sha(Buffer.from([0, 0]))));
  });
  it('reproduces the roots for sizes 1..8, incrementally and at every earlier size', () => {
    for (const [i, leaf] of CT_LEAVES.entries()) {
      tree.append(leaf);
      expect(toHex(tree.root()), `size ${i + 1}`).toBe(CT_ROOTS[i + 1]);
    }
    for (let n = 0; n <= 8; n++) expect(toHex(tree.root(n)), `root(${n})`).toBe(CT_ROOTS[n]);
  });
  it('produces the published audit paths and consistency proofs', () => {
    for (const [m, n, want] of CT_INCLUSION) expect(hexes(tree.inclusionPath(m, n).map((s) => s.hash)), `PATH(${m}, D[${n}])`).toEqual(want);
    for (const [m, n, want] of CT_CONSISTENCY) expect(hexes(tree.consistencyProof(m, n)), `PROOF(${m}, D[${n}])`).toEqual(want);
  });
});

describe('simple proof rule (docs/contract.md#merkle-proofs)', () => {
  const tree = createMerkleTree({ hasher: SPEC_HASHER });
  it('uses the entry hash as the leaf and SHA-256 over the raw concatenation', () => {
    const t = treeOf(SPEC_HASHER, 2);
    expect(t.leafHash(0)).toEqual(entryHash(0));
    expect(toHex(t.root())).toBe(toHex(sha(entryHash(0), entryHash(1))));
  });
  it('verifies every index of every tree size 1..70 by the rule alone, matching the reference tree', () => {
    for (let n = 1; n <= 70; n++) {
      treeOf(SPEC_HASHER, n, tree);
      const leaves = Array.from({ length: n }, (_, i) => entryHash(i));
      expect(toHex(tree.root()), `root ${n}`).toBe(toHex(refMth(SPEC_HASHER, leaves)));
      for (let m = 0; m < n; m++) {
        const p = buildSpecInclusionProof(tree, m, n);
        let cur: Buffer = Buffer.from(p.leaf, 'hex');
        for (const s of p.proof) cur = s.side === 'left' ? sha(Buffer.from(s.hash, 'hex'), cur) : sha(cur, Buffer.from(s.hash, 'hex'));
        expect(cur.toString('hex'), `n=${n} m=${m}`).toBe(p.merkleRootSha256);
        expect(verifyInclusionSpec(p)).toEqual({ ok: true });
      }
    }
  });
  it('proves at an earlier tree size against that size root', () => {
    const p = buildSpecInclusionProof(tree, 3, 11);
    expect(p.merkleRootSha256).toBe(
      toHex(
        refMth(
          SPEC_HASHER,
          Array.from({ length: 11 }, (_, i) => entryHash(i)),
        ),
      ),
    );
    expect(verifyInclusionSpec(p).ok).toBe(true);
  });
});

describe('RFC 6962 proofs over 1..70 leaves', () => {
  const tree = createMerkleTree({ hasher: RFC6962_HASHER });
  it('matches the reference audit path and verifies for every index and size', () => {
    for (let n = 1; n <= 70; n++) {
      treeOf(RFC6962_HASHER, n, tree);
      const leaves = Array.from({ length: n }, (_, i) => RFC6962_HASHER.leaf(entryHash(i)));
      for (let m = 0; m < n; m++) {
        const p = buildRfc6962InclusionProof(tree, m, n, toHex(entryHash(m)));
        expect(p.auditPath, `n=${n} m=${m}`).toEqual(hexes(refPath(RFC6962_HASHER, m, leaves)));
        expect(verifyInclusionRfc6962(p)).toEqual({ ok: true });
      }
    }
  });
  it('builds consistency proofs for all pairs up to 40 under both rules', () => {
    for (const hasher of [RFC6962_HASHER, SPEC_HASHER]) {
      const t = treeOf(hasher, 40);
      const leaves = Array.from({ length: 40 }, (_, i) => hasher.leaf(entryHash(i)));
      for (let n = 1; n <= 40; n++) {
        for (let m = 0; m <= n; m++) {
          const c = buildConsistencyProof(t, m, n);
          if (m > 0) expect(c.proof, `${hasher.rule} ${m}->${n}`).toEqual(hexes(refSub(hasher, m, leaves.slice(0, n), true)));
          expect(verifyConsistency(c), `${hasher.rule} ${m}->${n}`).toEqual({ ok: true });
        }
      }
    }
  });
});

function flipHex(hex: string, bit = 0): string {
  const b = Buffer.from(hex, 'hex');
  b[bit >> 3]! ^= 1 << (bit & 7);
  return b.toString('hex');
}

describe('mutated proofs fail', () => {
  const spec = treeOf(SPEC_HASHER, 80);
  const rfc = treeOf(RFC6962_HASHER, 80);
  it('simple-rule proofs: flipped bit, wrong index, truncated, extra step, swapped side, other tree size', () => {
    for (const [m, n] of [
      [0, 1],
      [0, 2],
      [5, 8],
      [12, 13],
      [37, 70],
      [64, 65],
      [69, 70],
    ] as const) {
      const p = buildSpecInclusionProof(spec, m, n);
      const bad: SpecInclusionProof[] = [
        { ...p, leaf: flipHex(p.leaf, 77) },
        { ...p, merkleRootSha256: flipHex(p.merkleRootSha256) },
        { ...p, proof: [...p.proof, { hash: p.leaf, side: 'left' }] },
      ];
      if (n < 70) bad.push({ ...p, treeSize: n + 1, merkleRootSha256: toHex(spec.root(n + 1)) });
      if (n > 1) bad.push({ ...p, index: (m + 1) % n }, { ...p, proof: p.proof.slice(0, -1) });
      for (let i = 0; i < p.proof.length; i++) {
        const s = p.proof[i]!;
        bad.push({ ...p, proof: p.proof.map((x, j) => (j === i ? { ...x, hash: flipHex(x.hash, 200) } : x)) });
        bad.push({ ...p, proof: p.proof.map((x, j) => (j === i ? { ...x, side: s.side === 'left' ? 'right' : 'left' } : x)) });
      }
      for (const b of bad) expect(verifyInclusionSpec(b).ok, JSON.stringify({ m, n })).toBe(false);
      // A proof of the same index taken at another tree size does not verify against this root.
      if (n < 70) expect(verifyInclusionSpec({ ...buildSpecInclusionProof(spec, m, n + 1), merkleRootSha256: p.merkleRootSha256 }).ok).toBe(false);
    }
  });
  it('RFC 6962 proofs: the same mutations, and a leaf hash that is not of entrySha256', () => {
    for (const [m, n] of [
      [0, 2],
      [5, 8],
      [12, 13],
      [37, 70],
      [64, 65],
    ] as const) {
      const p = buildRfc6962InclusionProof(rfc, m, n, toHex(entryHash(m)));
      const bad = [
        { ...p, entrySha256: toHex(entryHash(m + 1)) },
        { ...p, rootHash: flipHex(p.rootHash, 3) },
        { ...p, index: (m + 1) % n },
        { ...p, treeSize: n + 1, rootHash: toHex(rfc.root(n + 1)) },
        { ...p, auditPath: p.auditPath.slice(0, -1) },
        { ...p, auditPath: [...p.auditPath, p.rootHash] },
        { ...p, auditPath: p.auditPath.map((h, j) => (j === 0 ? flipHex(h, 9) : h)) },
        ...(p.auditPath.length > 1 ? [{ ...p, auditPath: [...p.auditPath].reverse() }] : []),
      ];
      for (const b of bad) expect(verifyInclusionRfc6962(b).ok, JSON.stringify({ m, n, b: b.index })).toBe(false);
    }
  });
  it('consistency proofs: flipped bit, truncated, extra step, wrong sizes, wrong roots', () => {
    for (const [m, n] of [
      [1, 8],
      [6, 8],
      [2, 5],
      [7, 40],
      [32, 70],
      [33, 64],
    ] as const) {
      for (const t of [rfc, spec]) {
        const c = buildConsistencyProof(t, m, n);
        const bad = [
          { ...c, proof: c.proof.map((h, j) => (j === c.proof.length - 1 ? flipHex(h, 100) : h)) },
          { ...c, proof: c.proof.slice(0, -1) },
          { ...c, proof: [...c.proof, c.toRoot] },
          { ...c, fromSize: m + 1, fromRoot: toHex(t.root(m + 1)) },
          { ...c, toSize: n + 3, toRoot: toHex(t.root(n + 3)) },
          { ...c, fromRoot: c.toRoot },
          { ...c, toRoot: flipHex(c.toRoot) },
          { ...c, fromSize: n, toSize: m },
        ];
        for (const b of bad) expect(verifyConsistency(b).ok, `${t.hasher.rule} ${m}->${n} ${JSON.stringify(b).slice(0, 60)}`).toBe(false);
      }
    }
  });
  it('binds the tree size only through the root (the signed checkpoint authenticates the size)', () => {
    // RFC 9162 verification consumes the size only through right shifts, so sizes with the same
    // path structure are indistinguishable for a fixed root: the size is trusted via the root.
    const p = buildRfc6962InclusionProof(rfc, 5, 8, toHex(entryHash(5)));
    expect(verifyInclusionRfc6962({ ...p, treeSize: 7 }).ok).toBe(true);
    expect(verifyInclusionRfc6962({ ...p, treeSize: 7, rootHash: toHex(rfc.root(7)) }).ok).toBe(false);
    // A claimed size with a different path structure fails even with the same root.
    expect(verifyInclusionSpec({ ...buildSpecInclusionProof(spec, 5, 8), treeSize: 6 }).ok).toBe(false);
  });
  it('never throws on malformed input', () => {
    expect(verifyInclusionSpec({} as SpecInclusionProof).ok).toBe(false);
    expect(verifyInclusionSpec(null as unknown as SpecInclusionProof).ok).toBe(false);
    expect(verifyConsistency({ format: 'rfc6962', fromSize: 1, toSize: 2, fromRoot: 'x', toRoot: 'y', proof: [], algorithm: '' }).ok).toBe(false);
  });
});

describe('file node store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'merkle-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('gives the same roots and proofs as the memory store across flush boundaries', () => {
    const fileTree = createMerkleTree({ hasher: RFC6962_HASHER, store: createFileNodeStore({ dir, hotLevelMin: 3, writeBufferBytes: 96 }) });
    const memTree = createMerkleTree({ hasher: RFC6962_HASHER });
    for (let n = 1; n <= 300; n++) {
      fileTree.append(entryHash(n));
      memTree.append(entryHash(n));
      if (n % 37 === 0 || n === 300) {
        for (const m of [0, n >> 1, n - 1])
          expect(hexes(fileTree.inclusionPath(m).map((s) => s.hash))).toEqual(hexes(memTree.inclusionPath(m).map((s) => s.hash)));
        expect(hexes(fileTree.consistencyProof(n >> 2))).toEqual(hexes(memTree.consistencyProof(n >> 2)));
        expect(toHex(fileTree.root(n - 3 > 0 ? n - 3 : n))).toBe(toHex(memTree.root(n - 3 > 0 ? n - 3 : n)));
      }
    }
    fileTree.close();
  });
});

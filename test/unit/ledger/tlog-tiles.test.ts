import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RFC6962_HASHER, SPEC_HASHER, sha256 } from '../../../src/ledger/merkle-hash.ts';
import { createFileNodeStore } from '../../../src/ledger/merkle-node-store.ts';
import { createMerkleTree } from '../../../src/ledger/merkle-tree.ts';
import { encodeTileIndex, formatTilePath, leavesNeeded, parseTilePath, readTile, type TileRef } from '../../../src/ledger/tlog-tiles.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** RFC 6962 MTH written straight from the definition, as the reference. */
function mth(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 1) return RFC6962_HASHER.leaf(leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return RFC6962_HASHER.node(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

function buildTrees(n: number, fileDir?: string) {
  const store = (sub: string) => (fileDir ? createFileNodeStore({ dir: join(fileDir, sub), writeBufferBytes: 32 * 100 }) : undefined);
  const rfcTree = createMerkleTree({ hasher: RFC6962_HASHER, store: store('rfc') });
  const specTree = createMerkleTree({ hasher: SPEC_HASHER, store: store('spec') });
  const data: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const d = sha256(Buffer.from(`entry ${i}`));
    data.push(d);
    rfcTree.append(d);
    specTree.append(d);
  }
  return { source: { size: n, rfcTree, specTree }, data };
}

const tile = (level: number, index: number, width: number, entries = false): TileRef => ({ entries, level, index, width });

describe('tile paths (C2SP tlog-tiles)', () => {
  it('encodes N in x-prefixed groups of three digits', () => {
    expect(encodeTileIndex(0)).toBe('000');
    expect(encodeTileIndex(999)).toBe('999');
    expect(encodeTileIndex(1000)).toBe('x001/000');
    expect(encodeTileIndex(1234067)).toBe('x001/x234/067');
    expect(formatTilePath(tile(2, 1234067, 256))).toBe('tile/2/x001/x234/067');
    expect(formatTilePath(tile(0, 5, 17, true))).toBe('tile/entries/005.p/17');
  });

  it('parses canonical paths and only those', () => {
    expect(parseTilePath('0/x001/x234/067')).toEqual({ ok: true, tile: tile(0, 1234067, 256) });
    expect(parseTilePath('1/000.p/3')).toEqual({ ok: true, tile: tile(1, 0, 3) });
    expect(parseTilePath('entries/x002/001.p/255')).toEqual({ ok: true, tile: tile(0, 2001, 255, true) });
    expect(parseTilePath('63/000')).toEqual({ ok: true, tile: tile(63, 0, 256) });
    const bad = [
      '',
      '0',
      '0/',
      '0/1',
      '0/0001',
      '00/000',
      '64/000',
      '-1/000',
      '0/x000/001',
      '0/001/002',
      '0/x001',
      '0/000.p/0',
      '0/000.p/256',
      '0/000.p/012',
      '0/000.p/',
      'data/000',
      'entries/000/',
      '0/x001/x002/x003/x004/x005/x006/007',
      '0/%30%30%30',
      '0/../000',
    ];
    for (const p of bad) expect(parseTilePath(p).ok, p).toBe(false);
  });

  it('counts the leaves a tile needs', () => {
    expect(leavesNeeded(tile(0, 0, 1))).toBe(1n);
    expect(leavesNeeded(tile(0, 1, 256))).toBe(512n);
    expect(leavesNeeded(tile(1, 0, 2))).toBe(512n);
    expect(leavesNeeded(tile(63, 0, 256))).toBe(1n << 512n);
  });
});

describe('reading tiles from the trees', () => {
  const n = 256 * 3 + 70;
  const { source, data } = buildTrees(n);

  it('level-0 tiles hold the leaf hashes and level-1 tiles the roots of full level-0 tiles', () => {
    const full = readTile(source, tile(0, 1, 256))!;
    expect(full.length).toBe(256 * 32);
    for (const i of [0, 77, 255]) expect(Buffer.from(full.subarray(i * 32, (i + 1) * 32))).toEqual(Buffer.from(RFC6962_HASHER.leaf(data[256 + i]!)));
    const partial = readTile(source, tile(0, 3, 70))!;
    expect(Buffer.from(partial.subarray(69 * 32))).toEqual(Buffer.from(RFC6962_HASHER.leaf(data[n - 1]!)));
    const upper = readTile(source, tile(1, 0, 3))!;
    for (let i = 0; i < 3; i++) expect(Buffer.from(upper.subarray(i * 32, (i + 1) * 32))).toEqual(Buffer.from(mth(data.slice(i * 256, (i + 1) * 256))));
  });

  it('entry bundles hold uint16-length-prefixed leaf data that hashes to the level-0 tile', () => {
    const bundle = readTile(source, tile(0, 2, 256, true))!;
    const hashes = readTile(source, tile(0, 2, 256))!;
    expect(bundle.length).toBe(256 * 34);
    for (let i = 0; i < 256; i++) {
      const at = i * 34;
      expect(Buffer.from(bundle).readUInt16BE(at)).toBe(32);
      expect(Buffer.from(RFC6962_HASHER.leaf(bundle.subarray(at + 2, at + 34)))).toEqual(Buffer.from(hashes.subarray(i * 32, (i + 1) * 32)));
    }
  });

  it('answers null for any tile beyond the tree', () => {
    expect(readTile(source, tile(0, 3, 256))).toBeNull();
    expect(readTile(source, tile(0, 3, 71))).toBeNull();
    expect(readTile(source, tile(0, 4, 1, true))).toBeNull();
    expect(readTile(source, tile(1, 0, 4))).toBeNull();
    expect(readTile(source, tile(2, 0, 1))).toBeNull();
    expect(readTile(source, tile(63, 0, 1))).toBeNull();
  });

  it('reads the same bytes from the file node store, across its write buffer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tiles-'));
    dirs.push(dir);
    const onFile = buildTrees(n, dir).source;
    for (const t of [tile(0, 0, 256), tile(0, 3, 70), tile(1, 0, 3), tile(0, 1, 256, true), tile(0, 3, 69, true)]) {
      expect(Buffer.from(readTile(onFile, t)!)).toEqual(Buffer.from(readTile(source, t)!));
    }
    onFile.rfcTree.close();
    onFile.specTree.close();
  });
});

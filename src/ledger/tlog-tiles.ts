/**
 * Tiles of the ledger's RFC 6962 tree (C2SP tlog-tiles), height 8:
 * - hash tile `tile/<L>/<N>[.p/<W>]`: W (256 when full) consecutive hashes; hash i is the root of
 *   leaves [(N·256 + i)·256^L, (N·256 + i + 1)·256^L), i.e. the stored perfect-subtree node
 *   (level 8L, index N·256 + i) of the RFC 6962 tree, so a tile is read, never hashed;
 * - entry bundle `tile/entries/<N>[.p/<W>]`: W entries, each a big-endian uint16 length then the
 *   entry's RFC 6962 leaf data, the 32 raw bytes of its `entrySha256` (what the tree already
 *   hashes: leaf hash = SHA-256(0x00 || data)).
 * `<N>` is written in groups of three digits, all but the last prefixed `x` (1234067 is
 * `x001/x234/067`); only the canonical spelling is accepted, as Go's sumdb/tlog does.
 */
import { HASH_BYTES } from './merkle-hash.ts';
import type { MerkleTree } from './merkle-tree.ts';

/** Levels of the Merkle tree one tile spans. */
export const TILE_HEIGHT = 8;
/** Hashes (or entries) in a full tile. */
export const TILE_WIDTH = 256;
/** Highest tile level the path grammar allows. */
export const MAX_TILE_LEVEL = 63;
/** Most `N` groups we parse: 6 groups reach 10^18, beyond any tile of a 2^53-leaf tree. */
const MAX_INDEX_GROUPS = 6;
const ENTRY_LENGTH_BYTES = 2;
const TILE_PATH_RE = /^(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/){0,5}[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/** One tile: a hash tile of `level`, or (`entries`) an entry bundle; `width` is 256 for a full tile. */
export interface TileRef {
  readonly entries: boolean;
  /** 0 for entry bundles. */
  readonly level: number;
  readonly index: number;
  readonly width: number;
}

/** A tile path's parse: the tile, or why the path is not one. */
export type TilePathResult = { readonly ok: true; readonly tile: TileRef } | { readonly ok: false; readonly reason: string };

/** `N` in the path's groups of three digits. */
export function encodeTileIndex(index: number): string {
  let n = index;
  let out = String(n % 1000).padStart(3, '0');
  while (n >= 1000) {
    n = Math.floor(n / 1000);
    out = `x${String(n % 1000).padStart(3, '0')}/${out}`;
  }
  return out;
}

/** The path of a tile below the log's prefix, e.g. `tile/0/x001/234.p/17`. */
export function formatTilePath(tile: TileRef): string {
  const partial = tile.width === TILE_WIDTH ? '' : `.p/${tile.width}`;
  return `tile/${tile.entries ? 'entries' : tile.level}/${encodeTileIndex(tile.index)}${partial}`;
}

/** Parses the part of a tile path after `tile/`; only canonical spellings are tiles. */
export function parseTilePath(rest: string): TilePathResult {
  const m = TILE_PATH_RE.exec(rest);
  if (!m) return { ok: false, reason: 'not a tile path' };
  const [, levelText, indexText, widthText] = m as unknown as [string, string, string, string | undefined];
  const groups = indexText.split('/');
  if (groups.length > MAX_INDEX_GROUPS) return { ok: false, reason: 'tile index too large' };
  const index = groups.reduce((n, g) => n * 1000 + Number(g.replace('x', '')), 0);
  const level = levelText === 'entries' ? 0 : Number(levelText);
  const width = widthText === undefined ? TILE_WIDTH : Number(widthText);
  if (level > MAX_TILE_LEVEL) return { ok: false, reason: 'tile level must be 0-63' };
  if (widthText !== undefined && width >= TILE_WIDTH) return { ok: false, reason: 'partial tile width must be 1-255' };
  if (!Number.isSafeInteger(index)) return { ok: false, reason: 'tile index too large' };
  const tile = { entries: levelText === 'entries', level, index, width };
  // Leading-zero groups (x000/001) name the same tile as 001: refuse them, one tile one URL.
  if (formatTilePath(tile) !== `tile/${rest}`) return { ok: false, reason: 'tile index is not in canonical form' };
  return { ok: true, tile };
}

/** Leaves a tree must hold for `tile` to exist: (N·256 + W)·256^L. */
export function leavesNeeded(tile: TileRef): bigint {
  return (BigInt(tile.index) * BigInt(TILE_WIDTH) + BigInt(tile.width)) << BigInt(TILE_HEIGHT * tile.level);
}

/** The trees a tile is read from, at a size they hold. */
export interface TileSource {
  /** Durable leaves. */
  readonly size: number;
  /** The RFC 6962 tree. */
  readonly rfcTree: MerkleTree;
  /** The simple-rule tree, whose leaves are the raw `entrySha256` (the RFC 6962 leaf data). */
  readonly specTree: MerkleTree;
}

/** The bytes of `tile`, or null when the tree is too small for it. */
export function readTile(source: TileSource, tile: TileRef): Uint8Array | null {
  if (leavesNeeded(tile) > BigInt(source.size)) return null;
  const start = tile.index * TILE_WIDTH;
  if (!tile.entries) return source.rfcTree.nodes(TILE_HEIGHT * tile.level, start, tile.width);
  const data = source.specTree.nodes(0, start, tile.width);
  const entryBytes = ENTRY_LENGTH_BYTES + HASH_BYTES;
  const out = Buffer.allocUnsafe(tile.width * entryBytes);
  for (let i = 0; i < tile.width; i++) {
    out.writeUInt16BE(HASH_BYTES, i * entryBytes);
    out.set(data.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES), i * entryBytes + ENTRY_LENGTH_BYTES);
  }
  return out;
}

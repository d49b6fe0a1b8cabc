/**
 * Storage of the complete perfect-subtree roots of a Merkle tree, level by level, each level an
 * append-only array of 32-byte hashes: node (level l, index i) is the root over leaves
 * [i·2^l, (i+1)·2^l). A tree of n leaves holds 2n - popcount(n) such nodes, and any inclusion or
 * consistency proof at any earlier size is assembled from O(log n) of them.
 *
 * Two stores:
 * - memory: everything in growable buffers (tests; ~64 MB per tree at 1M leaves).
 * - file: levels below `hotLevelMin` live in one append-only file per level, read with positional
 *   reads (the OS page cache is the read cache); levels from `hotLevelMin` up hold about
 *   2n / 2^hotLevelMin nodes in all and stay in memory (at the default 8: ~256 KB per million
 *   leaves). Writes are
 *   buffered. The files are DERIVED data, rebuilt from the WAL on every open, so they are never
 *   fsynced and a crash cannot leave them ahead of the WAL.
 */
import { closeSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceError } from '../errors.ts';
import { HASH_BYTES } from './merkle-hash.ts';

/** Append-only per-level node arrays. */
export interface NodeStore {
  count(level: number): number;
  /** A copy of node (level, index); index must be < count(level). */
  read(level: number, index: number): Uint8Array;
  /** Nodes [start, start + count) of `level`, concatenated (one positional read for the file store); all must be stored. */
  readRange(level: number, start: number, count: number): Uint8Array;
  append(level: number, hash: Uint8Array): void;
  /** Writes buffered nodes out (file store); no durability promise. */
  flush(): void;
  close(): void;
}

/** Deepest level a tree of up to 2^52 leaves can have. */
const MAX_LEVELS = 53;
const INITIAL_LEVEL_BYTES = 64 * HASH_BYTES;
/** Default write buffer per file-backed level. */
export const DEFAULT_WRITE_BUFFER_BYTES = 64 * 1024;
/** Default first level kept wholly in memory by the file store. */
export const DEFAULT_HOT_LEVEL_MIN = 8;

interface MemoryLevel {
  buf: Buffer;
  count: number;
}

function memoryAppend(level: MemoryLevel, hash: Uint8Array): void {
  const end = (level.count + 1) * HASH_BYTES;
  if (end > level.buf.length) {
    const grown = Buffer.allocUnsafe(Math.max(INITIAL_LEVEL_BYTES, level.buf.length * 2));
    level.buf.copy(grown, 0, 0, level.count * HASH_BYTES);
    level.buf = grown;
  }
  level.buf.set(hash, level.count * HASH_BYTES);
  level.count += 1;
}

function memoryRead(level: MemoryLevel, index: number): Uint8Array {
  const start = index * HASH_BYTES;
  return Buffer.from(level.buf.subarray(start, start + HASH_BYTES));
}

function checkRange(level: number, start: number, count: number, have: number): void {
  checkLevel(level);
  if (!(Number.isSafeInteger(start) && Number.isSafeInteger(count) && start >= 0 && count >= 0 && start + count <= have)) {
    throw new ServiceError('internal_error', `merkle nodes (${level}, ${start}..+${count}) not stored (level holds ${have})`);
  }
}

function checkLevel(level: number): void {
  if (!Number.isInteger(level) || level < 0 || level >= MAX_LEVELS) {
    throw new ServiceError('internal_error', `merkle node level ${level} out of range`);
  }
}

function missingNode(level: number, index: number, count: number): ServiceError {
  return new ServiceError('internal_error', `merkle node (${level}, ${index}) not stored (level holds ${count})`);
}

/** A node store held entirely in memory. */
export function createMemoryNodeStore(): NodeStore {
  const levels: MemoryLevel[] = [];
  const levelAt = (level: number): MemoryLevel => {
    checkLevel(level);
    while (levels.length <= level) levels.push({ buf: Buffer.alloc(0), count: 0 });
    return levels[level]!;
  };
  return {
    count: (level) => levels[level]?.count ?? 0,
    read(level, index) {
      const l = levelAt(level);
      if (!(index >= 0 && index < l.count)) throw missingNode(level, index, l.count);
      return memoryRead(l, index);
    },
    readRange(level, start, count) {
      const l = levelAt(level);
      checkRange(level, start, count, l.count);
      return Buffer.from(l.buf.subarray(start * HASH_BYTES, (start + count) * HASH_BYTES));
    },
    append: (level, hash) => memoryAppend(levelAt(level), hash),
    flush: () => undefined,
    close: () => undefined,
  };
}

/** Configuration of the file-backed node store. */
export interface FileNodeStoreConfig {
  /** Directory for `level-NN.bin`; existing level files are truncated (they are rebuilt). */
  readonly dir: string;
  readonly hotLevelMin?: number;
  readonly writeBufferBytes?: number;
}

interface FileLevel {
  readonly fd: number;
  flushed: number;
  readonly pending: Buffer;
  pendingCount: number;
}

function fileLevelFlush(level: FileLevel): void {
  let written = 0;
  const bytes = level.pendingCount * HASH_BYTES;
  while (written < bytes) {
    written += writeSync(level.fd, level.pending, written, bytes - written, level.flushed * HASH_BYTES + written);
  }
  level.flushed += level.pendingCount;
  level.pendingCount = 0;
}

function fileLevelRead(level: FileLevel, index: number): Uint8Array {
  if (index >= level.flushed) {
    const start = (index - level.flushed) * HASH_BYTES;
    return Buffer.from(level.pending.subarray(start, start + HASH_BYTES));
  }
  const out = Buffer.allocUnsafe(HASH_BYTES);
  let got = 0;
  while (got < HASH_BYTES) {
    const n = readSync(level.fd, out, got, HASH_BYTES - got, index * HASH_BYTES + got);
    if (n === 0) throw new ServiceError('internal_error', `merkle node file ended before node ${index}`);
    got += n;
  }
  return out;
}

function readAt(fd: number, out: Buffer, position: number): void {
  let got = 0;
  while (got < out.length) {
    const n = readSync(fd, out, got, out.length - got, position + got);
    if (n === 0) throw new ServiceError('internal_error', `merkle node file ended at byte ${position + got}`);
    got += n;
  }
}

/** Nodes [start, start + count) of a file level: the flushed part in one read, the rest from the write buffer. */
function fileLevelReadRange(level: FileLevel, start: number, count: number): Uint8Array {
  const out = Buffer.allocUnsafe(count * HASH_BYTES);
  const fromFile = Math.max(0, Math.min(start + count, level.flushed) - start);
  if (fromFile > 0) readAt(level.fd, out.subarray(0, fromFile * HASH_BYTES), start * HASH_BYTES);
  const pendingStart = Math.max(start, level.flushed) - level.flushed;
  level.pending.copy(out, fromFile * HASH_BYTES, pendingStart * HASH_BYTES, (pendingStart + count - fromFile) * HASH_BYTES);
  return out;
}

/** A node store whose lower levels live in append-only files under `config.dir`. */
export function createFileNodeStore(config: Readonly<FileNodeStoreConfig>): NodeStore {
  const hotLevelMin = config.hotLevelMin ?? DEFAULT_HOT_LEVEL_MIN;
  const perLevelBuffer = Math.max(HASH_BYTES, Math.floor((config.writeBufferBytes ?? DEFAULT_WRITE_BUFFER_BYTES) / HASH_BYTES) * HASH_BYTES);
  mkdirSync(config.dir, { recursive: true });
  const cold: FileLevel[] = [];
  const hot: MemoryLevel[] = [];
  const coldAt = (level: number): FileLevel => {
    while (cold.length <= level) {
      const fd = openSync(join(config.dir, `level-${String(cold.length).padStart(2, '0')}.bin`), 'w+');
      cold.push({ fd, flushed: 0, pending: Buffer.allocUnsafe(perLevelBuffer), pendingCount: 0 });
    }
    return cold[level]!;
  };
  const hotAt = (level: number): MemoryLevel => {
    const i = level - hotLevelMin;
    while (hot.length <= i) hot.push({ buf: Buffer.alloc(0), count: 0 });
    return hot[i]!;
  };
  const count = (level: number): number => {
    if (level >= hotLevelMin) return hot[level - hotLevelMin]?.count ?? 0;
    const l = cold[level];
    return l ? l.flushed + l.pendingCount : 0;
  };
  return {
    count,
    read(level, index) {
      checkLevel(level);
      const have = count(level);
      if (!(index >= 0 && index < have)) throw missingNode(level, index, have);
      return level >= hotLevelMin ? memoryRead(hotAt(level), index) : fileLevelRead(coldAt(level), index);
    },
    readRange(level, start, n) {
      checkRange(level, start, n, count(level));
      if (level >= hotLevelMin) return Buffer.from(hotAt(level).buf.subarray(start * HASH_BYTES, (start + n) * HASH_BYTES));
      return fileLevelReadRange(coldAt(level), start, n);
    },
    append(level, hash) {
      checkLevel(level);
      if (level >= hotLevelMin) return memoryAppend(hotAt(level), hash);
      const l = coldAt(level);
      l.pending.set(hash, l.pendingCount * HASH_BYTES);
      l.pendingCount += 1;
      if (l.pendingCount * HASH_BYTES >= l.pending.length) fileLevelFlush(l);
    },
    flush() {
      for (const l of cold) fileLevelFlush(l);
    },
    close() {
      for (const l of cold) {
        fileLevelFlush(l);
        closeSync(l.fd);
      }
      cold.length = 0;
    },
  };
}

/**
 * What the ledger knows about its durable entries, and how it comes to know it on open: the WAL
 * is opened (created durably when absent), replayed and verified line by line into the offset
 * index and both Merkle trees, and a torn tail left by a crash is cut. After open, only entries
 * that became durable are absorbed, so the state never runs ahead of the disk.
 */
import { fstatSync, openSync } from 'node:fs';
import { ensureFileSync } from '../durable/atomic-replace.ts';
import { makeDirSync, truncateDurablySync } from '../durable/file-sync.ts';
import { join } from 'node:path';
import { GENESIS_PREV_HASH, parseEntryLine, type LedgerEntry } from './ledger-entry.ts';
import { replayWal, type TornTail } from './ledger-wal.ts';
import { RFC6962_HASHER, SPEC_HASHER, type HashRule } from './merkle-hash.ts';
import { createFileNodeStore, createMemoryNodeStore } from './merkle-node-store.ts';
import { createMerkleTree, type MerkleTree } from './merkle-tree.ts';

/** File name of the WAL inside the ledger directory. */
export const WAL_FILE_NAME = 'ledger.wal';
const INITIAL_OFFSET_CAPACITY = 1024;

/** Where the ledger's files live. */
export interface LedgerStorageConfig {
  /** Ledger directory (e.g. `<data-dir>/ledger`); created when absent. */
  readonly dir: string;
  /** Where the trees' nodes live; default `file` (derived files under `dir`). */
  readonly nodeStore?: 'file' | 'memory';
}

/** What opening found. */
export interface LedgerOpenReport {
  readonly entries: number;
  readonly bytes: number;
  readonly tornTail: TornTail | null;
  readonly replayMs: number;
}

/** Byte offsets of the WAL lines, by entry index (8 bytes an entry, capacity doubled as it fills). */
export interface OffsetIndex {
  push(offset: number): void;
  get(i: number): number;
}

/** What the ledger knows about its durable entries; changed only by `absorb`. */
export interface DurableState {
  readonly specTree: MerkleTree;
  readonly rfcTree: MerkleTree;
  readonly offsets: OffsetIndex;
  size: number;
  chainHead: string;
  endOffset: number;
  lastAppendAt: string | null;
}

/** The WAL, open for reading and appending, with the state its replay rebuilt. */
export interface OpenedLedger {
  readonly fd: number;
  readonly state: DurableState;
  readonly openReport: LedgerOpenReport;
}

function createOffsetIndex(): OffsetIndex {
  let arr = new Float64Array(INITIAL_OFFSET_CAPACITY);
  let length = 0;
  return {
    push(offset) {
      if (length === arr.length) {
        const grown = new Float64Array(arr.length * 2);
        grown.set(arr);
        arr = grown;
      }
      arr[length++] = offset;
    },
    get: (i) => arr[i]!,
  };
}

function openWalFd(dir: string): number {
  makeDirSync(dir, 0o777);
  const path = join(dir, WAL_FILE_NAME);
  // A new WAL's directory entry is made durable before any append to it is acknowledged.
  ensureFileSync(path, 0o666);
  return openSync(path, 'r+');
}

function createDurableState(config: Readonly<LedgerStorageConfig>): DurableState {
  const storeFor = (rule: HashRule) =>
    config.nodeStore === 'memory' ? createMemoryNodeStore() : createFileNodeStore({ dir: join(config.dir, `nodes-${rule}`) });
  return {
    specTree: createMerkleTree({ hasher: SPEC_HASHER, store: storeFor('spec') }),
    rfcTree: createMerkleTree({ hasher: RFC6962_HASHER, store: storeFor('rfc6962') }),
    offsets: createOffsetIndex(),
    size: 0,
    chainHead: GENESIS_PREV_HASH,
    endOffset: 0,
    lastAppendAt: null,
  };
}

/** Takes a durable entry (replayed or just committed) into the state, in index order. */
export function absorb(state: DurableState, entry: LedgerEntry, offset: number, lineBytes: number): void {
  const leaf = Buffer.from(entry.entrySha256, 'hex');
  state.offsets.push(offset);
  state.specTree.append(leaf);
  state.rfcTree.append(leaf);
  state.size += 1;
  state.chainHead = entry.entrySha256;
  state.lastAppendAt = entry.time;
  state.endOffset = offset + lineBytes;
}

/** Replays the WAL into `state`, cuts a torn tail, and reports. */
function recover(fd: number, state: DurableState, started: number): LedgerOpenReport {
  const { end, torn } = replayWal(fd, fstatSync(fd).size, ({ text, lineIndex, offset, bytes }) => {
    const parsed = parseEntryLine(text, { index: lineIndex, prevHash: state.chainHead });
    if (parsed.ok) absorb(state, parsed.entry, offset, bytes);
    return parsed;
  });
  if (torn) {
    truncateDurablySync(fd, end);
  }
  return Object.freeze({ entries: state.size, bytes: end, tornTail: torn, replayMs: performance.now() - started });
}

/** Opens (or creates) the WAL in `config.dir`, replays and verifies it, and rebuilds the trees. */
export function openDurableState(config: Readonly<LedgerStorageConfig>): OpenedLedger {
  const started = performance.now();
  const fd = openWalFd(config.dir);
  const state = createDurableState(config);
  return { fd, state, openReport: recover(fd, state, started) };
}

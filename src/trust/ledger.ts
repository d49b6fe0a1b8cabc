/**
 * The public ledger (docs/contract.md#ledger-entries, #merkle-proofs): an append-only WAL of
 * hash-chained entries (ledger-entry.ts), each also a leaf of two Merkle trees of the same RFC 6962
 * shape, one per hash rule (the simple rule for `/trust/proof`, RFC 6962 for `format=rfc6962`).
 *
 * Durability: `append` resolves only after its line is written and fdatasynced; concurrent
 * appends share one write + fdatasync (ledger-wal.ts). Readers (head, recent, entry, proofs)
 * see only durable entries, so nothing observable can vanish in a crash.
 *
 * Memory per entry: the offset index (8 bytes: a Float64Array of line offsets, capacity doubled
 * as it fills) and the in-memory upper tree levels (~n/128 hashes, ~0.25 byte per entry, per
 * tree); plus fixed write buffers of the node files (64 KiB per file-backed level). The trees'
 * lower levels live in derived node files rebuilt from the WAL on every open while the chain is
 * verified. Measured: ~10 MiB of heap and buffers at 1M entries.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceError } from '../errors.ts';
import { GENESIS_PREV_HASH, parseEntryLine, sealEntry, type LedgerDraft, type LedgerEntry } from './ledger-entry.ts';
import { createGroupCommitter, NODE_WAL_IO, replayWal, type CommitStats, type TornTail, type WalIo } from './ledger-wal.ts';
import { RFC6962_HASHER, SPEC_HASHER, toHex, type HashRule } from './merkle-hash.ts';
import { createFileNodeStore, createMemoryNodeStore } from './merkle-node-store.ts';
import {
  buildConsistencyProof,
  buildRfc6962InclusionProof,
  buildSpecInclusionProof,
  type ConsistencyProof,
  type Rfc6962InclusionProof,
  type SpecInclusionProof,
} from './merkle-proof.ts';
import { createMerkleTree, type MerkleTree } from './merkle-tree.ts';

/** File name of the WAL inside the ledger directory. */
export const WAL_FILE_NAME = 'ledger.wal';
const INITIAL_OFFSET_CAPACITY = 1024;

/** Configuration of a ledger. */
export interface LedgerConfig {
  /** Ledger directory (e.g. `<data-dir>/ledger`); created when absent. */
  readonly dir: string;
  /** Default true; false writes and fdatasyncs each append on its own (benchmark reference). */
  readonly groupCommit?: boolean;
  /** Where the trees' nodes live; default `file` (derived files under `dir`). */
  readonly nodeStore?: 'file' | 'memory';
  readonly now?: () => Date;
  readonly io?: WalIo;
}

/** What opening found. */
export interface LedgerOpenReport {
  readonly entries: number;
  readonly bytes: number;
  readonly tornTail: TornTail | null;
  readonly replayMs: number;
}

/** The durable head of the ledger. */
export interface LedgerHead {
  readonly chainHead: string;
  readonly treeSize: number;
  /** Root under the simple rule (what `/trust/proof` proves against). */
  readonly merkleRoot: string;
  readonly merkleRootRfc6962: string;
  readonly lastAppendAt: string | null;
}

/** State right after an appended entry became durable. */
export interface AppendResult {
  readonly index: number;
  readonly entrySha256: string;
  /** The chain head including this entry (its own entrySha256). */
  readonly chainHead: string;
  readonly treeSize: number;
}

/** An expected refusal (index outside the tree, sizes out of order) or the answer. */
export type LedgerAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

export interface Ledger {
  readonly openReport: LedgerOpenReport;
  append(draft: LedgerDraft): Promise<AppendResult>;
  head(): LedgerHead;
  /** The last `limit` durable entries, oldest first. */
  recent(limit: number): LedgerEntry[];
  entry(index: number): LedgerEntry | null;
  proof(index: number, treeSize?: number, format?: 'spec'): LedgerAnswer<SpecInclusionProof>;
  proof(index: number, treeSize: number | undefined, format: 'rfc6962'): LedgerAnswer<Rfc6962InclusionProof>;
  proof(index: number, treeSize?: number, format?: HashRule): LedgerAnswer<SpecInclusionProof | Rfc6962InclusionProof>;
  consistency(fromSize: number, toSize?: number, format?: HashRule): LedgerAnswer<ConsistencyProof>;
  stats(): Readonly<CommitStats>;
  /**
   * Why appends are refused (a write or fsync failed: the file state is unknown until a restart
   * replays it), or null while the ledger is writable. Paid calls must stop while it is set:
   * a settled payment could no longer get its entry.
   */
  failure(): string | null;
  /** Waits for queued appends, then releases files; later appends are refused. */
  close(): Promise<void>;
}

function createOffsetIndex(): { push(offset: number): void; get(i: number): number } {
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
  mkdirSync(dir, { recursive: true });
  const path = join(dir, WAL_FILE_NAME);
  closeSync(openSync(path, 'a'));
  // Make the (possibly new) directory entry itself durable before any acknowledged append.
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  return openSync(path, 'r+');
}

function readText(fd: number, start: number, end: number): string {
  const buf = Buffer.allocUnsafe(end - start);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, start + got);
    if (n === 0) throw new ServiceError('internal_error', `ledger WAL shorter than expected at offset ${start + got}`);
    got += n;
  }
  return buf.toString('utf8');
}

function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/** What the ledger knows about its durable entries; changed only by `absorb`. */
interface DurableState {
  readonly specTree: MerkleTree;
  readonly rfcTree: MerkleTree;
  readonly offsets: ReturnType<typeof createOffsetIndex>;
  size: number;
  chainHead: string;
  endOffset: number;
  lastAppendAt: string | null;
}

function createDurableState(config: Readonly<LedgerConfig>): DurableState {
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
function absorb(state: DurableState, entry: LedgerEntry, offset: number, lineBytes: number): void {
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
    ftruncateSync(fd, end);
    fsyncSync(fd);
  }
  return Object.freeze({ entries: state.size, bytes: end, tornTail: torn, replayMs: performance.now() - started });
}

function proofOf(state: DurableState, index: number, treeSize: number, format: HashRule): LedgerAnswer<SpecInclusionProof | Rfc6962InclusionProof> {
  if (!isCount(treeSize) || treeSize < 1 || treeSize > state.size) return { ok: false, reason: `treeSize must be 1..${state.size}` };
  if (!isCount(index) || index >= treeSize) return { ok: false, reason: `index must be 0..${treeSize - 1}` };
  if (format === 'rfc6962') return { ok: true, value: buildRfc6962InclusionProof(state.rfcTree, index, treeSize, toHex(state.specTree.leafHash(index))) };
  return { ok: true, value: buildSpecInclusionProof(state.specTree, index, treeSize) };
}

/** Opens (or creates) the ledger in `config.dir`: replays and verifies the WAL, rebuilds the trees. */
export async function createLedger(config: Readonly<LedgerConfig>): Promise<Ledger> {
  const started = performance.now();
  const now = config.now ?? (() => new Date());
  const fd = openWalFd(config.dir);
  const state = createDurableState(config);
  const openReport = recover(fd, state, started);
  let nextIndex = state.size;
  let assignedHead = state.chainHead;
  let closed = false;
  let cachedHead: LedgerHead | null = null;
  const committer = createGroupCommitter<{ entry: LedgerEntry; bytes: number }>({
    fd,
    position: openReport.bytes,
    groupCommit: config.groupCommit ?? true,
    io: config.io ?? NODE_WAL_IO,
    onDurable: (item, offset) => absorb(state, item.entry, offset, item.bytes),
  });

  return {
    openReport,
    async append(draft) {
      if (closed) throw new ServiceError('shutting_down', 'the ledger is closed');
      // The slot (index, prevHash) is fixed now, in call order; the chain links before durability.
      const { entry, line } = sealEntry(draft, { index: nextIndex, prevHash: assignedHead }, now());
      nextIndex += 1;
      assignedHead = entry.entrySha256;
      const bytes = Buffer.from(`${line}\n`);
      await committer.commit(bytes, { entry, bytes: bytes.length });
      return { index: entry.index, entrySha256: entry.entrySha256, chainHead: entry.entrySha256, treeSize: entry.index + 1 };
    },
    head() {
      // /health and /uptime ask often; the roots fold O(log n) hashes, so cache per tree size.
      if (cachedHead?.treeSize !== state.size) {
        const { chainHead, size, lastAppendAt, specTree, rfcTree } = state;
        cachedHead = Object.freeze({ chainHead, treeSize: size, merkleRoot: toHex(specTree.root()), merkleRootRfc6962: toHex(rfcTree.root()), lastAppendAt });
      }
      return cachedHead;
    },
    recent(limit) {
      const n = Math.min(Math.max(0, Math.floor(limit)), state.size);
      if (n === 0) return [];
      const text = readText(fd, state.offsets.get(state.size - n), state.endOffset);
      return text
        .slice(0, -1)
        .split('\n')
        .map((l) => JSON.parse(l) as LedgerEntry);
    },
    entry(index) {
      if (!isCount(index) || index >= state.size) return null;
      const stop = index + 1 < state.size ? state.offsets.get(index + 1) : state.endOffset;
      return JSON.parse(readText(fd, state.offsets.get(index), stop - 1)) as LedgerEntry;
    },
    proof: ((index: number, treeSize?: number, format?: HashRule) => proofOf(state, index, treeSize ?? state.size, format ?? 'spec')) as Ledger['proof'],
    consistency(fromSize, toSize = state.size, format = 'rfc6962') {
      if (!isCount(toSize) || toSize > state.size) return { ok: false, reason: `to must be 0..${state.size}` };
      if (!isCount(fromSize) || fromSize > toSize) return { ok: false, reason: `from must be 0..${toSize}` };
      return { ok: true, value: buildConsistencyProof(format === 'spec' ? state.specTree : state.rfcTree, fromSize, toSize) };
    },
    stats: () => committer.stats(),
    failure: () => committer.failure()?.message ?? null,
    async close() {
      if (closed) return;
      closed = true;
      await committer.drain();
      state.specTree.close();
      state.rfcTree.close();
      closeSync(fd);
    },
  };
}

/**
 * The read side of the ledger: head, recent entries, one entry, inclusion and consistency proofs.
 * Everything is answered from the durable state (ledger-durable-state.ts), so a reader never sees
 * an entry a crash could still take back. Entries are read back from the WAL by their offsets.
 */
import { readSync } from 'node:fs';
import { ServiceError } from '../errors.ts';
import type { DurableState } from './ledger-durable-state.ts';
import type { LedgerEntry } from './ledger-entry.ts';
import { toHex, type HashRule } from './merkle-hash.ts';
import {
  buildConsistencyProof,
  buildRfc6962InclusionProof,
  buildSpecInclusionProof,
  type ConsistencyProof,
  type Rfc6962InclusionProof,
  type SpecInclusionProof,
} from './merkle-proof.ts';
import { readTile, type TileRef } from './tlog-tiles.ts';

/** The durable head of the ledger. */
export interface LedgerHead {
  readonly chainHead: string;
  readonly treeSize: number;
  /** Root under the simple rule (what `/trust/proof` proves against). */
  readonly merkleRoot: string;
  readonly merkleRootRfc6962: string;
  readonly lastAppendAt: string | null;
}

/** An expected refusal (index outside the tree, sizes out of order) or the answer. */
export type LedgerAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** What anyone may read of the ledger: only durable entries. */
export interface LedgerReader {
  head(): LedgerHead;
  /** The last `limit` durable entries, oldest first. */
  recent(limit: number): LedgerEntry[];
  entry(index: number): LedgerEntry | null;
  proof(index: number, treeSize?: number, format?: 'spec'): LedgerAnswer<SpecInclusionProof>;
  proof(index: number, treeSize: number | undefined, format: 'rfc6962'): LedgerAnswer<Rfc6962InclusionProof>;
  proof(index: number, treeSize?: number, format?: HashRule): LedgerAnswer<SpecInclusionProof | Rfc6962InclusionProof>;
  consistency(fromSize: number, toSize?: number, format?: HashRule): LedgerAnswer<ConsistencyProof>;
  /** A C2SP tile or entry bundle of the RFC 6962 tree (tlog-tiles.ts), or null when the tree is too small for it. */
  tile(tile: TileRef): Uint8Array | null;
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

function proofOf(state: DurableState, index: number, treeSize: number, format: HashRule): LedgerAnswer<SpecInclusionProof | Rfc6962InclusionProof> {
  if (!isCount(treeSize) || treeSize < 1 || treeSize > state.size) return { ok: false, reason: `treeSize must be 1..${state.size}` };
  if (!isCount(index) || index >= treeSize) return { ok: false, reason: `index must be 0..${treeSize - 1}` };
  if (format === 'rfc6962') return { ok: true, value: buildRfc6962InclusionProof(state.rfcTree, index, treeSize, toHex(state.specTree.leafHash(index))) };
  return { ok: true, value: buildSpecInclusionProof(state.specTree, index, treeSize) };
}

/** Reads `state` and the WAL open at `fd`; the reader never writes either. */
export function createLedgerReader(fd: number, state: Readonly<DurableState>): LedgerReader {
  let cachedHead: LedgerHead | null = null;
  return {
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
    proof: ((index: number, treeSize?: number, format?: HashRule) => proofOf(state, index, treeSize ?? state.size, format ?? 'spec')) as LedgerReader['proof'],
    consistency(fromSize, toSize = state.size, format = 'rfc6962') {
      if (!isCount(toSize) || toSize > state.size) return { ok: false, reason: `to must be 0..${state.size}` };
      if (!isCount(fromSize) || fromSize > toSize) return { ok: false, reason: `from must be 0..${toSize}` };
      return { ok: true, value: buildConsistencyProof(format === 'spec' ? state.specTree : state.rfcTree, fromSize, toSize) };
    },
    tile: (tile) => readTile(state, tile),
  };
}

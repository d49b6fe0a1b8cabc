/**
 * The public ledger (docs/contract.md#ledger-entries, #merkle-proofs): an append-only WAL of
 * hash-chained entries (ledger-entry.ts), each also a leaf of two Merkle trees of the same RFC 6962
 * shape, one per hash rule (the simple rule for `/trust/proof`, RFC 6962 for `format=rfc6962`).
 * Opening replays and verifies the WAL (ledger-durable-state.ts); reads answer from durable
 * entries only (ledger-reader.ts); this file appends and closes.
 *
 * Durability: `append` resolves only once its line is durable: on the data directory's commit
 * journal, when its commit's journal line is on the device (with the payment state attached to
 * it); without one, after the WAL's own write + fdatasync (ledger-wal.ts). Concurrent appends
 * share one. Readers (head, recent, entry, proofs) see only durable entries, so nothing
 * observable can vanish in a crash.
 *
 * Memory per entry: the offset index (8 bytes: a Float64Array of line offsets, capacity doubled
 * as it fills) and the in-memory upper tree levels (~n/128 hashes, ~0.25 byte per entry, per
 * tree); plus fixed write buffers of the node files (64 KiB per file-backed level). The trees'
 * lower levels live in derived node files rebuilt from the WAL on every open while the chain is
 * verified. Measured: ~10 MiB of heap and buffers at 1M entries.
 */
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import type { CommitJournal, JournalWrite } from '../durable/commit-journal.ts';
import type { JournalFile } from '../durable/journal-file.ts';
import { commitEachAlone, commitStaged, settleAll, type StagedWrite } from '../durable/staged-write.ts';
import { ServiceError } from '../errors.ts';
import { absorb, openDurableState, WAL_FILE_NAME, type LedgerOpenReport, type LedgerStorageConfig } from './ledger-durable-state.ts';
import { sealEntry, type LedgerDraft, type LedgerEntry, type LedgerSlot } from './ledger-entry.ts';
import { createLedgerReader, type LedgerReader } from './ledger-reader.ts';
import { createGroupCommitter, NODE_WAL_IO, type CommitStats, type WalIo } from './ledger-wal.ts';

/** Configuration of a ledger. */
export interface LedgerConfig extends LedgerStorageConfig {
  /** Default true; false writes and fdatasyncs each append on its own (benchmark reference). */
  readonly groupCommit?: boolean;
  readonly now?: () => Date;
  readonly io?: WalIo;
  /**
   * The data directory's commit journal: entries are made durable by its commits, together with
   * the payment state attached to them (one durable write for both). Absent: the WAL's own group commit.
   */
  readonly journal?: CommitJournal;
}

/**
 * Payment state to make durable in the same commit as an entry (the charge, the kept answer),
 * built once the entry's slot is known. A failure here does not stop the entry: its slot is taken.
 */
export type EntryAttachment = (result: AppendResult) => Promise<readonly StagedWrite[]>;

/** State right after an appended entry became durable. */
export interface AppendResult {
  readonly index: number;
  readonly entrySha256: string;
  /** The chain head including this entry (its own entrySha256). */
  readonly chainHead: string;
  readonly treeSize: number;
}

/** Without a journal: the entry is durable, a write attached to it is not. */
export class AttachedWritesError extends Error {
  constructor(
    readonly appended: AppendResult,
    readonly reason: unknown,
  ) {
    super(`an entry's attached write failed: ${reason instanceof Error ? reason.message : String(reason)}`);
    this.name = 'AttachedWritesError';
  }
}

/** The open ledger: durable appends, reads of durable entries, and its health. */
export interface Ledger extends LedgerReader {
  readonly openReport: LedgerOpenReport;
  /**
   * Appends the entry; resolves once it is durable, with `attach`'s writes in the same commit
   * (each settled with its outcome; `attach` itself must not fail: a failure leaves the entry
   * alone). Rejects when the entry is not durable (on a journal nothing attached is either), or,
   * without a journal, with AttachedWritesError when the entry is and an attached write is not.
   * `first`: writes the entry depends on (a voucher's charge), in the same commit, checked before
   * the entry takes a slot where the store checks at commit (the database): one that fails
   * rejects the append with its error and no entry is written.
   */
  append(draft: LedgerDraft, attach?: EntryAttachment, first?: readonly StagedWrite[]): Promise<AppendResult>;
  stats(): Readonly<CommitStats>;
  /**
   * Why appends are refused (a write or fsync failed: the file state is unknown until a restart
   * replays it), or null while the ledger is writable. Paid calls must stop while it is set:
   * a settled payment could no longer get its entry.
   */
  failure(): string | null;
  /**
   * Calls `listener` with every entry once it is durable (readers already see it), in index
   * order, until the returned function is called. Listeners run on the commit path: they must be
   * quick and must not throw (a throw is logged and ignored; the entry stays durable).
   */
  onAppend(listener: AppendListener): () => void;
  /** Waits for queued appends, then releases files; later appends are refused. */
  close(): Promise<void>;
}

/** Told about each entry right after it became durable. */
export type AppendListener = (entry: LedgerEntry) => void;

/** Opens (or creates) the ledger in `config.dir`: replays and verifies the WAL, rebuilds the trees. */
export async function createLedger(config: Readonly<LedgerConfig>): Promise<Ledger> {
  const now = config.now ?? (() => new Date());
  const { fd, state, openReport } = openDurableState(config);
  let nextIndex = state.size;
  let assignedHead = state.chainHead;
  let epoch = config.journal?.epoch() ?? 0;
  let closed = false;
  const listeners = new Set<AppendListener>();
  const tell = (entry: LedgerEntry) => {
    for (const listener of listeners) {
      try {
        listener(entry);
      } catch (err) {
        console.error(`ledger: an append listener failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  const committer = createGroupCommitter<{ entry: LedgerEntry; bytes: number }>({
    fd,
    position: openReport.bytes,
    groupCommit: config.groupCommit ?? true,
    io: config.io ?? NODE_WAL_IO,
    onDurable: (item, offset) => {
      absorb(state, item.entry, offset, item.bytes);
      if (listeners.size > 0) tell(item.entry);
    },
  });

  // On a journal the WAL's bytes are written by the journal's commits, once their journal line is durable.
  const walFile = config.journal ? config.journal.file(join(config.dir, WAL_FILE_NAME), 0o666) : null;
  const walWrite = (file: JournalFile, entry: LedgerEntry, text: string): JournalWrite => ({
    file,
    text,
    onDurable: (offset) => {
      absorb(state, entry, offset, Buffer.byteLength(text));
      if (listeners.size > 0) tell(entry);
    },
  });

  return {
    ...createLedgerReader(fd, state),
    openReport,
    async append(draft, attach, first = []) {
      if (closed) {
        const err = new ServiceError('shutting_down', 'the ledger is closed');
        settleAll(first, err);
        throw err;
      }
      // After a batch the disk refused, its entries and every one chained after them are refused
      // too: the chain starts again from the last durable entry.
      if (config.journal && config.journal.epoch() !== epoch) {
        epoch = config.journal.epoch();
        nextIndex = state.size;
        assignedHead = state.chainHead;
      }
      // The slot (index, prevHash) is fixed now, in call order; the chain links before durability.
      const { entry, line } = sealOrSettle(draft, { index: nextIndex, prevHash: assignedHead }, now(), first);
      // The place in the journal's order is taken with the slot (a draft that cannot be sealed
      // takes none: an unfilled place would hold every commit behind it), so entries reach the WAL
      // in index order.
      const place = config.journal?.reserve();
      nextIndex += 1;
      assignedHead = entry.entrySha256;
      const result = { index: entry.index, entrySha256: entry.entrySha256, chainHead: entry.entrySha256, treeSize: entry.index + 1 };
      // The files' stores checked `first` when they staged it (in memory): it rides with the rest.
      const attached: readonly StagedWrite[] = [...first, ...(attach ? await attach(result).catch(() => []) : [])];
      const text = `${line}\n`;
      if (walFile && place) {
        await commitStaged(attached, { journal: config.journal!, place, own: [walWrite(walFile, entry, text)] });
        return result;
      }
      const [own, rest] = await Promise.allSettled([committer.commit(Buffer.from(text), { entry, bytes: Buffer.byteLength(text) }), commitEachAlone(attached)]);
      if (own.status === 'rejected') throw own.reason;
      if (rest.status === 'rejected') throw new AttachedWritesError(result, rest.reason);
      return result;
    },
    stats: () => (config.journal ? journalStats(config.journal) : committer.stats()),
    onAppend(listener) {
      // A fresh wrapper per call, so one function may be subscribed twice and removed once.
      const own: AppendListener = (entry) => listener(entry);
      listeners.add(own);
      return () => void listeners.delete(own);
    },
    failure: () => config.journal?.failure() ?? committer.failure()?.message ?? null,
    async close() {
      if (closed) return;
      closed = true;
      await committer.drain();
      await config.journal?.drain();
      state.specTree.close();
      state.rfcTree.close();
      closeSync(fd);
    },
  };
}

/** Seals the draft; a draft that cannot be an entry settles the writes staged to ride with it as failed. */
function sealOrSettle(draft: LedgerDraft, slot: LedgerSlot, time: Date, first: readonly StagedWrite[]): ReturnType<typeof sealEntry> {
  try {
    return sealEntry(draft, slot, time);
  } catch (err) {
    settleAll(first, err);
    throw err;
  }
}

/** The journal's counters in the ledger's terms (every commit carries at most one entry). */
function journalStats(journal: CommitJournal): CommitStats {
  const s = journal.stats();
  return { appends: s.commits, commits: s.syncs, bytes: 0, maxBatch: s.maxBatch };
}

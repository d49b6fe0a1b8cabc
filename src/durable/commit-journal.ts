/**
 * One durable commit for everything a paid call changes (the charge, the replay record, the kept
 * answer, the ledger entry), whatever files they live in: the shape of every serious ledger, one
 * log, batches, one fsync per batch. A commit is one record of this journal: a JSON header line
 * naming each write's file, byte offset and length, then the writes' bytes as they are (a text is
 * never escaped into JSON a second time), then a newline. The record is written first (O_DSYNC:
 * on the device when the write returns, as write + fdatasync), then each file gets its bytes with
 * no sync of its own, and the commit resolves. So N concurrent paid calls cost one fdatasync together, and a crash at any
 * point leaves the whole commit (journal-recovery.ts lays it down again at the next start) or none.
 *
 * Order: a commit takes its place when it is reserved (`reserve`), not when it is filled, so a
 * ledger entry whose slot was assigned first is written first even when its receipt is signed
 * last. A batch is the longest run of filled places at the head of the queue.
 *
 * Checkpoint: once the journal passes CHECKPOINT_BYTES (or CHECKPOINT_MS passed), before the next
 * batch, every file written since is synced, the journal is emptied, and then the owners' hooks
 * compact or rotate their files: the only moment a journaled file may be replaced or renamed.
 */
import { constants, fstatSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { ensureFileSync } from './atomic-replace.ts';
import { closeFile, makeDirSync, truncateDurably, writeAll, writeAllSync } from './file-sync.ts';
import { openJournalFile, journalNameOf, type JournalFileIo } from './journal-file.ts';
import type { CommitJournal, JournalPlace, JournalStats, JournalWrite } from './journal-types.ts';
import { recoverJournalSync } from './journal-recovery.ts';
import { frameBatch } from './frame-batch.ts';

export type { CommitJournal, JournalPlace, JournalStats, JournalWrite } from './journal-types.ts';

/** The journal's file name in its directory (the data directory). */
export const JOURNAL_FILE_NAME = 'commit.journal';
/** Journal size that calls for a checkpoint, bytes: a start replays at most about this much. */
export const CHECKPOINT_BYTES = 8 * 1024 * 1024;
/** Longest time between checkpoints while commits arrive, ms (rotations and compactions wait for one). */
export const CHECKPOINT_MS = 60_000;

export interface CommitJournalConfig {
  /** The data directory: the journal and every file it names live under it. */
  readonly dir: string;
  readonly checkpointBytes?: number;
  readonly checkpointMs?: number;
  readonly now?: () => number;
  /**
   * Runs before a batch's journal write (`journal`) and between its fdatasync and the files'
   * writes (`files`): the two boundaries a crash can fall on (tests hold or fail them).
   */
  readonly seam?: (point: 'journal' | 'files') => Promise<void>;
  /** True while the event loop is idle: a lone commit's journal line is then written on the loop (docs/payments.md). */
  readonly writeInline?: () => boolean;
}

/** Errors by which the disk refuses a write it did not take: no room, a size limit, a quota (or a test's scripted refusal, which has no code). */
const REFUSALS = new Set(['ENOSPC', 'EFBIG', 'EDQUOT']);
const refusedByTheDisk = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === undefined || REFUSALS.has(code);
};

/** A batch the disk refused before any of it was acknowledged; the journal is intact and goes on. */
class RefusedBatch extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

interface Place {
  readonly epoch: number;
  writes: readonly JournalWrite[] | null;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Opens the journal in `config.dir`: what it holds is put back into its files first. */
export function openCommitJournal(config: CommitJournalConfig): CommitJournal {
  makeDirSync(config.dir);
  const path = join(config.dir, JOURNAL_FILE_NAME);
  const recovery = recoverJournalSync(config.dir, path);
  ensureFileSync(path);
  // O_DSYNC: a write returns once its data is on the device (as write + fdatasync would), so a
  // batch costs one trip to the thread pool, not two.
  const fd = openSync(path, constants.O_RDWR | constants.O_DSYNC);
  let journalSize = fstatSync(fd).size;
  const now = config.now ?? Date.now;
  const checkpointBytes = config.checkpointBytes ?? CHECKPOINT_BYTES;
  const checkpointMs = config.checkpointMs ?? CHECKPOINT_MS;
  const files = new Map<string, JournalFileIo>();
  const hooks: Array<() => Promise<void>> = [];
  const stats: JournalStats = { commits: 0, syncs: 0, checkpoints: 0, maxBatch: 0 };
  let queue: Place[] = [];
  let running: Promise<void> | null = null;
  let failed: Error | null = null;
  let closed = false;
  let checkpointedAt = now();
  let epoch = 0;

  async function checkpoint(): Promise<void> {
    await Promise.all([...files.values()].map((f) => f.sync()));
    await truncateDurably(fd, 0);
    journalSize = 0;
    checkpointedAt = now();
    stats.checkpoints += 1;
    for (const hook of hooks) await hook();
  }

  /** Writes one batch: the journal record of each commit, one fdatasync, then the files' bytes. */
  async function write(batch: readonly Place[]): Promise<void> {
    if (journalSize >= checkpointBytes || now() - checkpointedAt >= checkpointMs) await checkpoint();
    const { lines, perFile, durable } = frameBatch(
      batch.map((p) => p.writes!),
      files,
    );
    if (lines.length === 0) return;
    const buf = Buffer.concat(lines);
    try {
      await config.seam?.('journal');
      if (batch.length === 1 && config.writeInline?.()) writeAllSync(fd, buf, journalSize);
      else await writeAll(fd, buf, journalSize);
    } catch (err) {
      // Refused before anything was acknowledged (a full disk, a size limit): what part of the
      // batch landed is cut, and the journal goes on. Any other failure (an I/O error while the
      // data went to the device) stops it: the file's state is then unknown (its pages may be
      // marked clean), and only a restart's replay knows what is there.
      if (!refusedByTheDisk(err)) throw err;
      await truncateDurably(fd, journalSize);
      throw new RefusedBatch(err);
    }
    journalSize += buf.length;
    stats.syncs += 1;
    // Durable now: the files get their bytes. A failure here is repaired from the journal at the
    // next start, so the batch stands; the journal stops taking commits until then.
    // Written here on the event loop: page-cache writes of a few kB cost less than the thread
    // pool's trip (its wake-up, callback and promise) they replaced, and the batch's reply waits
    // for no second trip; the one fsync stays the journal's, off the loop.
    try {
      await config.seam?.('files');
      for (const [file, { at, chunks }] of perFile) {
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        file.write(bytes, at);
        file.advance(bytes.length);
      }
    } catch (err) {
      failed = new Error(`commit journal's files could not be written (${(err as Error).message}); commits stop until a restart replays the journal`);
    }
    for (const { w, offset } of durable) w.onDurable?.(offset);
  }

  async function run(): Promise<void> {
    // One turn first: commits of requests delivered by the same I/O phase join this batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (;;) {
      let n = 0;
      while (n < queue.length && queue[n]!.writes !== null) n++;
      if (n === 0) return;
      const taken = queue.slice(0, n);
      queue = queue.slice(n);
      const batch = taken.filter((p) => p.epoch === epoch);
      for (const p of taken)
        if (p.epoch !== epoch) p.reject(new Error('a commit ordered before this one was refused by the disk; nothing of this one was written'));
      try {
        if (failed) throw failed;
        await write(batch);
      } catch (err) {
        if (err instanceof RefusedBatch) epoch += 1;
        else failed ??= new Error(`commit journal write failed (${(err as Error).message}); commits stop until a restart replays the journal`);
        for (const p of batch) p.reject(err instanceof RefusedBatch ? err.reason : failed);
        continue;
      }
      const made = batch.filter((p) => p.writes!.length > 0).length;
      stats.commits += made;
      stats.maxBatch = Math.max(stats.maxBatch, made);
      for (const p of batch) p.resolve();
    }
  }

  function kick(): void {
    if (running) return;
    running = run().finally(() => {
      running = null;
      if (queue[0]?.writes) kick();
    });
  }

  function reserve(): JournalPlace {
    if (closed) return { fill: () => Promise.reject(new Error('the commit journal is closed')) };
    let place!: Place;
    const done = new Promise<void>((resolve, reject) => {
      place = { epoch, writes: null, resolve, reject };
    });
    queue.push(place);
    return {
      fill(writes) {
        if (place.writes !== null) throw new Error('a journal place is filled once');
        place.writes = writes;
        kick();
        return done;
      },
    };
  }

  return {
    dir: config.dir,
    recovery,
    file(filePath, mode) {
      const name = journalNameOf(config.dir, filePath);
      if (files.has(name)) throw new Error(`${name} is already a file of this journal`);
      const file = openJournalFile(filePath, name, mode);
      files.set(name, file);
      return file;
    },
    reserve,
    epoch: () => epoch,
    commit: (writes) => reserve().fill(writes),
    onCheckpoint: (hook) => void hooks.push(hook),
    stats: () => ({ ...stats }),
    failure: () => failed?.message ?? null,
    async drain() {
      while (running) await running;
    },
    async close() {
      if (closed) return;
      closed = true;
      while (running) await running;
      if (!failed) await checkpoint().catch(() => undefined);
      await Promise.all([...files.values()].map((f) => f.close()));
      await closeFile(fd);
    },
  };
}

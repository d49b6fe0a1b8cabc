/**
 * One durable commit for everything a paid call changes (the charge, the replay record, the kept
 * answer, the ledger entry), whatever files they live in: the shape of every serious ledger, one
 * log, batches, one fsync per batch. A commit is one record of this journal (journal-layout.ts): a
 * sequence number, a JSON header line naming each write's file, byte offset and length, then the
 * writes' bytes as they are (a text is never escaped into JSON a second time), then a newline, all
 * under a CRC. The journal's file is preallocated and reused, so a record overwrites old bytes
 * instead of growing the file. The record is written first (O_DSYNC: on the device when the write
 * returns, as write + fdatasync), then each file gets its bytes with no sync of its own, and the
 * commit resolves. So N concurrent paid calls cost one fdatasync together, and a crash at any point
 * leaves the whole commit (journal-recovery.ts lays it down again at the next start) or none.
 *
 * Order: a commit takes its place when it is reserved (`reserve`), not when it is filled, so a
 * ledger entry whose slot was assigned first is written first even when its receipt is signed
 * last. A batch is the longest run of filled places at the head of the queue.
 *
 * Checkpoint: once the journal passes CHECKPOINT_BYTES (or CHECKPOINT_MS passed), before the next
 * batch, every file written since is synced, a new generation begins (the header names the next
 * sequence number; records start again at the file's beginning), and then the owners' hooks
 * compact or rotate their files: the only moment a journaled file may be replaced or renamed.
 */
import { constants, openSync } from 'node:fs';
import { join } from 'node:path';
import { ensureFileSync } from './atomic-replace.ts';
import { closeFile, type Landed, makeDirSync, writeAll, writeAllSync } from './file-sync.ts';
import { openJournalFile, journalNameOf, type JournalFileIo } from './journal-file.ts';
import type { CommitJournal, CommitJournalConfig, CommitOptions, JournalPlace, JournalStats, JournalWrite } from './journal-types.ts';
import { recoverJournalSync } from './journal-recovery.ts';
import { frameBatch } from './frame-batch.ts';
import { DATA_START } from './journal-layout.ts';
import { createGather } from './unhurried-gather.ts';
import { erase, preallocateSync, RefusedBatch, refusedByTheDisk, writeHeader, writeHeaderSync } from './journal-space.ts';

export type { CommitJournal, CommitJournalConfig, CommitOptions, JournalPlace, JournalStats, JournalWrite } from './journal-types.ts';

/** The journal's file name in its directory (the data directory). */
export const JOURNAL_FILE_NAME = 'commit.journal';
/** Journal size that calls for a checkpoint, bytes: a start replays at most about this much. */
export const CHECKPOINT_BYTES = 8 * 1024 * 1024;
/** Longest time between checkpoints while commits arrive, ms (rotations and compactions wait for one). */
export const CHECKPOINT_MS = 60_000;
/** Zero-filled room past the checkpoint size, bytes: the batch that crosses it still overwrites, it does not grow the file. */
export const PREALLOCATED_SLACK_BYTES = 1024 * 1024;

interface Place {
  readonly epoch: number;
  writes: readonly JournalWrite[] | null;
  unhurried: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Opens the journal in `config.dir`: what it holds is put back into its files first. */
export function openCommitJournal(config: CommitJournalConfig): CommitJournal {
  makeDirSync(config.dir);
  const path = join(config.dir, JOURNAL_FILE_NAME);
  const { report: recovery, next } = recoverJournalSync(config.dir, path);
  ensureFileSync(path);
  const checkpointBytes = config.checkpointBytes ?? CHECKPOINT_BYTES;
  const checkpointMs = config.checkpointMs ?? CHECKPOINT_MS;
  preallocateSync(path, DATA_START + checkpointBytes + PREALLOCATED_SLACK_BYTES);
  // O_DSYNC: a write returns once its data is on the device (as write + fdatasync would), so a
  // batch costs one trip to the thread pool, not two.
  const fd = openSync(path, constants.O_RDWR | constants.O_DSYNC);
  // The new generation: whatever the file holds past here is an older one's (or zeros).
  writeHeaderSync(fd, next);
  let header = next;
  let seq = next.from;
  let journalSize = DATA_START;
  const now = config.now ?? Date.now;
  const files = new Map<string, JournalFileIo>();
  const hooks: Array<() => Promise<void>> = [];
  const stats: JournalStats = { commits: 0, syncs: 0, checkpoints: 0, maxBatch: 0 };
  let queue: Place[] = [];
  let running: Promise<void> | null = null;
  let failed: Error | null = null;
  let closed = false;
  let checkpointedAt = now();
  let epoch = 0;
  const gathering = createGather(config.unhurriedGatherMs);
  let drains = 0; // drain() under way: nothing waits for company

  async function checkpoint(): Promise<void> {
    await Promise.all([...files.values()].map((f) => f.sync()));
    header = { n: header.n + 1, from: seq };
    await writeHeader(fd, header);
    journalSize = DATA_START;
    checkpointedAt = now();
    stats.checkpoints += 1;
    for (const hook of hooks) await hook();
  }

  /** Writes one batch: the journal record of each commit, one fdatasync, then the files' bytes. */
  async function write(batch: readonly Place[]): Promise<void> {
    if (journalSize - DATA_START >= checkpointBytes || now() - checkpointedAt >= checkpointMs) await checkpoint();
    const framed = frameBatch(
      batch.map((p) => p.writes!),
      files,
      seq,
    );
    if (framed.lines.length === 0) return;
    const buf = Buffer.concat(framed.lines);
    const landed: Landed = { bytes: 0 };
    try {
      await config.seam?.('journal');
      if (batch.filter((p) => !p.unhurried).length <= 1 && config.writeInline?.()) writeAllSync(fd, buf, journalSize, landed);
      else await writeAll(fd, buf, journalSize, landed);
    } catch (err) {
      // Refused before anything was acknowledged (a full disk, a size limit): what part of the
      // batch landed is zeroed, and the journal goes on. Any other failure (an I/O error while the
      // data went to the device) stops it: the file's state is then unknown (its pages may be
      // marked clean), and only a restart's replay knows what is there.
      if (!refusedByTheDisk(err)) throw err;
      await erase(fd, journalSize, landed.bytes);
      throw new RefusedBatch(err);
    }
    const at = journalSize;
    journalSize += buf.length;
    stats.syncs += 1;
    await writeFiles(framed.perFile, at, buf.length);
    // Numbered for good only now: a refused batch's bytes are zeroed, and the next batch takes its numbers (recovery wants no gap).
    seq = framed.next;
    for (const { w, offset } of framed.durable) w.onDurable?.(offset);
  }

  /**
   * Durable now: the files get their bytes, on the event loop (page-cache writes of a few kB cost
   * less than the thread pool's trip they replaced; the one fsync stays the journal's). A file the
   * disk refuses (no room to grow it: the journal itself is preallocated) takes the batch back
   * before anyone was answered: the files cut to where they were, the record zeroed, the batch
   * refused, the journal goes on. Any other failure is repaired from the journal at the next
   * start, so the batch stands; the journal stops taking commits until then.
   */
  async function writeFiles(perFile: ReturnType<typeof frameBatch>['perFile'], at: number, length: number): Promise<void> {
    const written: Array<readonly [JournalFileIo, number]> = [];
    try {
      await config.seam?.('files');
      for (const [file, { at: from, chunks }] of perFile) {
        written.push([file, from]);
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        file.write(bytes, from);
        file.advance(bytes.length);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === undefined || !refusedByTheDisk(err)) {
        failed = new Error(`commit journal's files could not be written (${(err as Error).message}); commits stop until a restart replays the journal`);
        return;
      }
      // The files first: a crash between the two then leaves the whole commit, laid down again at the start.
      for (const [file, from] of written) await file.cut(from);
      await erase(fd, at, length);
      journalSize = at;
      throw new RefusedBatch(err);
    }
  }

  const filledAtHead = (open = queue.findIndex((p) => p.writes === null)): number => (open === -1 ? queue.length : open);
  async function run(): Promise<void> {
    // One turn first: commits of requests delivered by the same I/O phase join this batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (;;) {
      let n = filledAtHead();
      if (n > 0 && !closed && drains === 0 && queue.slice(0, n).every((p) => p.unhurried)) {
        await gathering.wait();
        n = filledAtHead();
      }
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

  function reserve(options: CommitOptions = {}): JournalPlace {
    if (closed) return { fill: () => Promise.reject(new Error('the commit journal is closed')) };
    let place!: Place;
    const done = new Promise<void>((resolve, reject) => {
      place = { epoch, writes: null, unhurried: options.unhurried === true, resolve, reject };
    });
    queue.push(place);
    return {
      fill(writes) {
        if (place.writes !== null) throw new Error('a journal place is filled once');
        place.writes = writes;
        if (!place.unhurried) gathering.hurry();
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
    reserve: () => reserve(),
    epoch: () => epoch,
    commit: (writes, options) => reserve(options).fill(writes),
    onCheckpoint: (hook) => void hooks.push(hook),
    stats: () => ({ ...stats }),
    failure: () => failed?.message ?? null,
    async drain() {
      drains += 1;
      gathering.hurry();
      while (running) await running;
      drains -= 1;
    },
    async close() {
      if (closed) return;
      closed = true;
      gathering.hurry();
      while (running) await running;
      if (!failed) await checkpoint().catch(() => undefined);
      await Promise.all([...files.values()].map((f) => f.close()));
      await closeFile(fd);
    },
  };
}

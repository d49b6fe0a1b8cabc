/**
 * A file whose writes go through the commit journal (commit-journal.ts): the journal decides
 * where each write lands (`size` is the next offset) and when the file is synced; the owner only
 * reads it. Between checkpoints the file is never replaced or renamed, because the journal's
 * records name byte offsets in it: a compaction or a rotation is done by the owner's checkpoint
 * hook, when the journal is empty and every file is on disk.
 */
import { constants, fstatSync, openSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { ensureFileSync, replaceFile } from './atomic-replace.ts';
import { closeFile, dataSync, makeDirSync, openFile, renameFile, syncDir, truncateDurably, writeAllSync } from './file-sync.ts';

export interface JournalFile {
  /** Its path relative to the journal's directory: how the journal's records name it. */
  readonly name: string;
  readonly path: string;
  /** Bytes in the file: where the next write lands. */
  size(): number;
  /** Replaces the whole file with `text`, atomically and durably (a compaction): checkpoint hooks only. */
  replace(text: string): Promise<void>;
  /** Renames the file to `to` and starts an empty one, both durable (a rotation): checkpoint hooks only. */
  rotate(to: string): Promise<void>;
}

/** What the journal does with a file: positional writes without sync, and the sync at a checkpoint. */
export interface JournalFileIo extends JournalFile {
  /**
   * Writes `buf` at `position` on the calling thread, without sync: the bytes go to the page cache
   * (their durability is the journal's line, written before). A file a compaction replaced is
   * opened again here, once after each checkpoint that replaced it.
   */
  write(buf: Buffer, position: number): void;
  /** Moves the write position past bytes written. */
  advance(bytes: number): void;
  /** Cuts the file back to `at` bytes, durably, and writes go there again: a batch the disk refused after part of it reached the file. */
  cut(at: number): Promise<void>;
  /** Flushes what was written since the last sync; nothing when nothing was. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** Opens `path` (created durably when absent) for the journal; its current length is where writes start. */
export function openJournalFile(path: string, name: string, mode = 0o600): JournalFileIo {
  makeDirSync(dirname(path));
  ensureFileSync(path, mode);
  let fd: number | null = openSync(path, constants.O_WRONLY, mode);
  let size = fstatSync(fd).size;
  let dirty = false;
  const handle = async (): Promise<number> => {
    if (fd === null) fd = await openFile(path, constants.O_WRONLY | constants.O_CREAT, mode);
    return fd;
  };
  const drop = async (): Promise<void> => {
    const old = fd;
    fd = null;
    if (old !== null) await closeFile(old);
  };
  return {
    name,
    path,
    size: () => size,
    write(buf, position) {
      fd ??= openSync(path, constants.O_WRONLY | constants.O_CREAT, mode);
      dirty = true;
      writeAllSync(fd, buf, position);
    },
    advance(bytes) {
      size += bytes;
    },
    async cut(at) {
      await truncateDurably(await handle(), at);
      size = at;
    },
    async sync() {
      if (!dirty) return;
      await dataSync(await handle());
      dirty = false;
    },
    async replace(text) {
      await drop();
      await replaceFile(path, text, mode);
      size = Buffer.byteLength(text);
      dirty = false;
    },
    async rotate(to) {
      await drop();
      await renameFile(path, to);
      fd = await openFile(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, mode);
      // The rename and the new file's entry, both in this directory, made durable at once.
      await syncDir(dirname(path));
      size = 0;
      dirty = false;
    },
    close: drop,
  };
}

/** The journal's name for a file under its directory (a plain relative path; never `..`). */
export function journalNameOf(dir: string, path: string): string {
  const rel = path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : null;
  if (rel === null || rel.split('/').includes('..')) throw new Error(`${basename(path)} is not under the journal's directory`);
  return rel;
}

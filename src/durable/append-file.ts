/**
 * A file of lines appended durably, which a failed append or a crash cannot spoil for the
 * records after it. Two traps:
 * - A crash or a failed append can leave a torn line at the end (the write only partly landed).
 *   The next record appended would be glued onto that fragment and be unreadable at the next
 *   start. So a torn tail found at open is cut (it was never acknowledged: an append resolves
 *   only after its write and fdatasync), and after a failed append the next one begins with a
 *   newline: the fragment stays a line of its own, which every reader skips.
 * - A replaced, rotated or removed file is a new inode or none: appends must go to the file the
 *   name holds now, and the rename must be durable (atomic-replace.ts) before anything appended
 *   to the new file is acknowledged.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureFileSync, replaceFile } from './atomic-replace.ts';
import { closeFile, dataSync, openFile, renameFile, syncDir, truncateDurablySync, writeAll } from './file-sync.ts';

const TAIL_CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** A file open for durable appends; one caller at a time (a group commit's flush). */
export interface AppendFile {
  readonly path: string;
  /** Writes `text` (whole lines) at the end and fdatasyncs it; resolves once durable. */
  append(text: string): Promise<void>;
  /** Replaces the whole file with `text` (a compaction), atomically and durably; later appends go to the new file. */
  replace(text: string): Promise<void>;
  /** Renames the file to `to` (replacing what is there) and starts an empty one at `path`, both durable. */
  rotate(to: string): Promise<void>;
  /** Closes the file (a later append opens it again). */
  close(): Promise<void>;
}

/** The length of the file at `fd` without its unterminated last line. */
function completeLength(fd: number): number {
  const size = fstatSync(fd).size;
  const buf = Buffer.allocUnsafe(TAIL_CHUNK_BYTES);
  for (let end = size; end > 0; end -= TAIL_CHUNK_BYTES) {
    const start = Math.max(0, end - TAIL_CHUNK_BYTES);
    const n = readSync(fd, buf, 0, end - start, start);
    const nl = buf.subarray(0, n).lastIndexOf(NEWLINE);
    if (nl >= 0) return start + nl + 1;
  }
  return 0;
}

/** Cuts a torn last line off `path` (durably); returns the bytes cut. */
export function cutTornTailSync(path: string): number {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    const keep = completeLength(fd);
    if (keep === size) return 0;
    truncateDurablySync(fd, keep);
    return size - keep;
  } finally {
    closeSync(fd);
  }
}

/** Opens `path` for appends (created durably when absent, a torn tail cut), synchronously: a start fails here, not a request. */
export function openAppendFile(path: string, mode = 0o600): AppendFile {
  ensureFileSync(path, mode);
  cutTornTailSync(path);
  let fd: number | null = openSync(path, 'a', mode);
  let mayBeTorn = false;

  /**
   * The file now at `path`. The fd is kept between appends, but one whose file was removed or
   * replaced meanwhile (no name left: nlink 0, an in-memory fstat) would go on taking appends
   * that no restart reads, so it is reopened by name; a missing file is created with its
   * directory entry made durable.
   */
  async function current(): Promise<number> {
    if (fd !== null && fstatSync(fd).nlink > 0) return fd;
    await drop();
    try {
      fd = await openFile(path, constants.O_WRONLY | constants.O_APPEND);
      return fd;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const created = await openFile(path, 'a', mode);
    fd = created;
    await syncDir(dirname(path));
    return created;
  }
  async function drop(): Promise<void> {
    const old = fd;
    fd = null;
    if (old !== null) await closeFile(old);
  }

  return {
    path,
    async append(text) {
      try {
        const at = await current();
        await writeAll(at, Buffer.from(mayBeTorn ? `\n${text}` : text), null);
        await dataSync(at);
        mayBeTorn = false;
      } catch (err) {
        mayBeTorn = true;
        throw err;
      }
    },
    async replace(text) {
      try {
        await replaceFile(path, text, mode);
        mayBeTorn = false;
      } finally {
        // Whether or not the rename happened, the open fd may name the old file now: reopen by name.
        await drop();
      }
    },
    async rotate(to) {
      await drop();
      await renameFile(path, to);
      mayBeTorn = false;
      // current() creates the new file and fsyncs the directory: the rename and the new file at once.
      await current();
    },
    close: drop,
  };
}

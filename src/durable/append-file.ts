/**
 * A file of lines appended durably, which a failed append or a crash cannot spoil for the
 * records after it. Two traps:
 * - A crash or a failed append can leave a torn line at the end (the write only partly landed).
 *   The next record appended would be glued onto that fragment and be unreadable at the next
 *   start. So a torn tail found at open is cut (it was never acknowledged: an append resolves
 *   only after its write and fdatasync), and after a failed append the next one begins with a
 *   newline: the fragment stays a line of its own, which every reader skips.
 * - A replaced or rotated file is a new inode: appends must go to it (the file is opened by name
 *   for each batch), and the rename must be durable (atomic-replace.ts) before anything appended
 *   to the new file is acknowledged.
 */
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureFileSync, replaceFile } from './atomic-replace.ts';
import { closeFile, dataSync, openFile, renameFile, syncDir, writeAll } from './file-sync.ts';

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
    ftruncateSync(fd, keep);
    fsyncSync(fd);
    return size - keep;
  } finally {
    closeSync(fd);
  }
}

/** Opens `path` for appends (created durably when absent, a torn tail cut), synchronously: a start fails here, not a request. */
export function openAppendFile(path: string, mode = 0o600): AppendFile {
  ensureFileSync(path, mode);
  cutTornTailSync(path);
  let mayBeTorn = false;

  /**
   * The file by its name at each append (not an fd kept open, which would go on writing to a file
   * replaced, rotated or removed meanwhile, and lose what it acknowledges); a missing file is
   * created with its directory entry made durable.
   */
  async function openNamed(): Promise<number> {
    try {
      return await openFile(path, constants.O_WRONLY | constants.O_APPEND);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const fd = await openFile(path, 'a', mode);
    try {
      await syncDir(dirname(path));
    } catch (err) {
      await closeFile(fd);
      throw err;
    }
    return fd;
  }

  return {
    path,
    async append(text) {
      try {
        const fd = await openNamed();
        try {
          await writeAll(fd, Buffer.from(mayBeTorn ? `\n${text}` : text), null);
          await dataSync(fd);
        } finally {
          await closeFile(fd);
        }
        mayBeTorn = false;
      } catch (err) {
        mayBeTorn = true;
        throw err;
      }
    },
    async replace(text) {
      await replaceFile(path, text, mode);
      mayBeTorn = false;
    },
    async rotate(to) {
      await renameFile(path, to);
      mayBeTorn = false;
      // The new file and the rename become durable with one fsync of the directory.
      await closeFile(await openFile(path, 'a', mode));
      await syncDir(dirname(path));
    },
  };
}

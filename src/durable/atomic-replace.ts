/**
 * Replacing a whole file so that a crash at any moment leaves either the old content or the new,
 * whole, and a replacement that returned is still there after a crash: the new content goes to
 * `<path>.tmp` (one writer per path at a time: callers serialize their replacements), is fsync'd,
 * renamed over `path`, and then the directory is fsync'd, because until then the rename itself
 * lives only in memory and a crash can bring the old file back.
 */
import { closeSync, existsSync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { closeFile, dataSync, openFile, renameFile, syncDir, syncDirSync, writeAll } from './file-sync.ts';

/** The temporary file a replacement of `path` is written to. */
export const tempPathOf = (path: string): string => `${path}.tmp`;

/** Replaces `path` with `data` (file mode `mode` when it is created); resolves once durable. */
export async function replaceFile(path: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const tmp = tempPathOf(path);
  const fd = await openFile(tmp, 'w', mode);
  try {
    await writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data, 0);
    await dataSync(fd);
  } finally {
    await closeFile(fd);
  }
  await renameFile(tmp, path);
  await syncDir(dirname(path));
}

/** Writes `data` to a new file `tmp` and fsyncs it. */
function writeSyncedSync(tmp: string, data: string | Buffer, mode: number, flags: string): void {
  const fd = openSync(tmp, flags, mode);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    for (let done = 0; done < buf.length; ) done += writeSync(fd, buf, done, buf.length - done, done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** `replaceFile` at start-up, where a failure is to stop the start. */
export function replaceFileSync(path: string, data: string | Buffer, mode = 0o600): void {
  const tmp = tempPathOf(path);
  writeSyncedSync(tmp, data, mode, 'w');
  renameSync(tmp, path);
  syncDirSync(dirname(path));
}

/**
 * Creates `path` with `data` once, durably and whole (a key made at the first start): throws
 * EEXIST, leaving it as it is, when the file exists or another process creates it meanwhile.
 * The content is fsync'd under a name of this process's own, then hard-linked into place (which
 * never replaces a file), and the directory fsync'd.
 */
export function createFileOnceSync(path: string, data: string | Buffer, mode = 0o600): void {
  const tmp = `${tempPathOf(path)}-${process.pid}`;
  writeSyncedSync(tmp, data, mode, 'wx');
  try {
    linkSync(tmp, path);
  } finally {
    unlinkSync(tmp);
  }
  syncDirSync(dirname(path));
}

/** Creates `path` empty if it is absent, its directory entry durable; a present file is left as it is. */
export function ensureFileSync(path: string, mode = 0o600): void {
  if (existsSync(path)) return;
  closeSync(openSync(path, 'a', mode));
  syncDirSync(dirname(path));
}

/**
 * Replacing a whole file so that a crash at any moment leaves either the old content or the new,
 * whole, and a replacement that returned is still there after a crash: the new content goes to
 * `<path>.tmp` (one writer per path at a time: callers serialize their replacements), is fsync'd,
 * renamed over `path`, and then the directory is fsync'd, because until then the rename itself
 * lives only in memory and a crash can bring the old file back.
 */
import { closeSync, existsSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
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

/** `replaceFile` at start-up, where a failure is to stop the start. */
export function replaceFileSync(path: string, data: string | Buffer, mode = 0o600): void {
  const tmp = tempPathOf(path);
  const fd = openSync(tmp, 'w', mode);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    for (let done = 0; done < buf.length; ) done += writeSync(fd, buf, done, buf.length - done, done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDirSync(dirname(path));
}

/** Creates `path` empty if it is absent, its directory entry durable; a present file is left as it is. */
export function ensureFileSync(path: string, mode = 0o600): void {
  if (existsSync(path)) return;
  closeSync(openSync(path, 'a', mode));
  syncDirSync(dirname(path));
}

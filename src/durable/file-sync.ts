/**
 * The file operations every durable write here is made of, promise-shaped over the callback API
 * of node:fs (no `FileHandle`: one fd a file, the same in the synchronous start-up paths and the
 * asynchronous serving paths). A write is always whole: `write(2)` may store part of a buffer and
 * succeed (a full disk, a file-size limit), and the rest would be silently missing.
 */
import { close, closeSync, fdatasync, fsync, fsyncSync, ftruncate, ftruncateSync, mkdirSync, open, openSync, rename, write, writeSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';

const call = <T>(run: (done: (err: NodeJS.ErrnoException | null, value?: T) => void) => void): Promise<T> =>
  new Promise<T>((ok, fail) => run((err, value) => (err ? fail(err) : ok(value as T))));

export const openFile = (path: string, flags: string | number, mode?: number): Promise<number> => call<number>((done) => open(path, flags, mode, done));
export const closeFile = (fd: number): Promise<void> => call<void>((done) => close(fd, done));
export const renameFile = (from: string, to: string): Promise<void> => call<void>((done) => rename(from, to, done));
/** Flushes the file's data (and the size that reaches it) to the device. */
export const dataSync = (fd: number): Promise<void> => call<void>((done) => fdatasync(fd, done));

/** Cuts the file at `fd` to `length` bytes and makes the new length durable. */
export async function truncateDurably(fd: number, length: number): Promise<void> {
  await call<void>((done) => ftruncate(fd, length, done));
  await call<void>((done) => fsync(fd, done));
}

/** `truncateDurably` at start-up (a torn tail cut, a journal emptied), where a failure is to stop the start. */
export function truncateDurablySync(fd: number, length: number): void {
  ftruncateSync(fd, length);
  fsyncSync(fd);
}

/** How many bytes of a write landed: kept up to date while it runs, so a caller knows what a failed write left. */
export interface Landed {
  bytes: number;
}

/** Writes all of `buf` at `position` (null: at the end, for a file opened for append). */
export async function writeAll(fd: number, buf: Buffer, position: number | null, landed: Landed = { bytes: 0 }): Promise<void> {
  for (landed.bytes = 0; landed.bytes < buf.length; ) {
    const at = position === null ? null : position + landed.bytes;
    landed.bytes += await call<number>((cb) => write(fd, buf, landed.bytes, buf.length - landed.bytes, at, cb));
  }
}

/**
 * `writeAll` on the calling thread, for a write with no sync that lands in the page cache (a few
 * µs for a few kB, measured against 25-30 µs of CPU for the same write through the thread pool):
 * the commit journal's files, after their journal line is durable (commit-journal.ts).
 */
export function writeAllSync(fd: number, buf: Buffer, position: number, landed: Landed = { bytes: 0 }): void {
  for (landed.bytes = 0; landed.bytes < buf.length; ) landed.bytes += writeSync(fd, buf, landed.bytes, buf.length - landed.bytes, position + landed.bytes);
}

/**
 * Makes the directory's entries durable: a file created, renamed into or out of `dir` is only
 * there after a crash once the directory itself is fsync'd (fsync of the file does not cover it).
 */
export async function syncDir(dir: string): Promise<void> {
  const fd = await openFile(dir, 'r');
  try {
    await call<void>((done) => fsync(fd, done));
  } finally {
    await closeFile(fd);
  }
}

/** `syncDir` at start-up, where a failure is to stop the start. */
export function syncDirSync(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates `dir` (and its missing parents) with `mode`, each new directory made durable in its
 * parent, so a data directory made at the first start is still there after a crash.
 */
export function makeDirSync(dir: string, mode = 0o700): void {
  const first = mkdirSync(dir, { recursive: true, mode });
  if (first === undefined) return;
  const made = relative(dirname(first), resolve(dir)).split(sep);
  let parent = dirname(first);
  for (const part of made) {
    syncDirSync(parent);
    parent = resolve(parent, part);
  }
}

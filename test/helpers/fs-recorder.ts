/**
 * A recording seam over node:fs and node:fs/promises for durability tests: every file created,
 * renamed or made as a directory, and every fsync (by the path of the fd or FileHandle it was
 * called on), lands in one shared event list. A test file installs it with
 *
 *   vi.mock('node:fs', async (orig) => (await import('../helpers/fs-recorder.ts')).recordingFs(await orig()));
 *   vi.mock('node:fs/promises', async (orig) => (await import('../helpers/fs-recorder.ts')).recordingFsPromises(await orig()));
 *
 * and checks `unsyncedEntries()` after an operation resolved: each directory entry made (a new
 * file, a rename, a directory) must be followed by an fsync of its directory before the operation
 * returned, or a crash can lose it. It works on any code that writes through node:fs, so the same
 * test runs against a store before and after it moved to src/durable/.
 *
 * This module must not import node:fs itself: it is loaded from inside the mock's factory.
 */
import { dirname, resolve } from 'node:path';

export type FsEvent =
  | { readonly op: 'create' | 'mkdir' | 'fsync'; readonly path: string }
  | { readonly op: 'rename'; readonly from: string; readonly to: string };

/** Faults to inject: `tearNextWrite` = n makes the next callback write store n bytes of its buffer, then fail with ENOSPC. */
export const faults: { tearNextWrite: number | null } = { tearNextWrite: null };

/** Every recorded event, in order; a test empties it (`events.length = 0`) before the operation it checks. */
export const events: FsEvent[] = [];
const pathOfFd = new Map<number, string>();

type Fs = typeof import('node:fs');
type FsPromises = typeof import('node:fs/promises');
type Callback = (err: NodeJS.ErrnoException | null, value?: unknown) => void;

/** Whether opening with `flags` may create the file. */
function creates(flags: unknown): boolean {
  if (typeof flags === 'number') return (flags & 0o100) !== 0; // O_CREAT on Linux
  return typeof flags === 'string' && /[wax]/.test(flags);
}

function noteOpen(path: string, fd: number, existed: boolean, flags: unknown): void {
  pathOfFd.set(fd, resolve(path));
  if (!existed && creates(flags)) events.push({ op: 'create', path: resolve(path) });
}

function noteFsync(fd: number): void {
  const path = pathOfFd.get(fd);
  if (path !== undefined) events.push({ op: 'fsync', path });
}

/** node:fs with its creating, renaming and syncing functions recorded. */
export function recordingFs(orig: Fs): Fs {
  const fs: Record<string, unknown> = { ...orig };
  fs.openSync = (path: string, flags: unknown, mode?: number) => {
    const existed = orig.existsSync(path);
    const fd = orig.openSync(path, flags as string, mode);
    noteOpen(path, fd, existed, flags);
    return fd;
  };
  fs.open = (path: string, flags: unknown, mode: unknown, cb?: Callback) => {
    const done = (typeof mode === 'function' ? mode : cb) as Callback;
    const existed = orig.existsSync(path);
    orig.open(path, flags as string, typeof mode === 'function' ? undefined : (mode as number), (err, fd) => {
      if (!err) noteOpen(path, fd, existed, flags);
      done(err, fd);
    });
  };
  for (const name of ['fsyncSync', 'fdatasyncSync'] as const)
    fs[name] = (fd: number) => {
      orig[name](fd);
      noteFsync(fd);
    };
  for (const name of ['fsync', 'fdatasync'] as const)
    fs[name] = (fd: number, cb: Callback) =>
      orig[name](fd, (err) => {
        if (!err) noteFsync(fd);
        cb(err);
      });
  fs.write = (fd: number, buf: Buffer, offset: number, length: number, position: number | null, cb: Callback) => {
    const keep = faults.tearNextWrite;
    if (keep === null) return orig.write(fd, buf, offset, length, position, cb);
    faults.tearNextWrite = null;
    orig.write(fd, buf, offset, Math.min(keep, length), position, (err) =>
      cb(err ?? Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })),
    );
  };
  fs.renameSync = (from: string, to: string) => {
    orig.renameSync(from, to);
    events.push({ op: 'rename', from: resolve(from), to: resolve(to) });
  };
  fs.rename = (from: string, to: string, cb: Callback) =>
    orig.rename(from, to, (err) => {
      if (!err) events.push({ op: 'rename', from: resolve(from), to: resolve(to) });
      cb(err);
    });
  fs.writeFileSync = (path: unknown, data: unknown, options?: unknown) => {
    const existed = typeof path !== 'string' || orig.existsSync(path);
    orig.writeFileSync(path as string, data as string, options as undefined);
    if (!existed) events.push({ op: 'create', path: resolve(path as string) });
  };
  fs.linkSync = (from: string, to: string) => {
    orig.linkSync(from, to);
    events.push({ op: 'create', path: resolve(to) });
  };
  fs.mkdirSync = (path: string, options?: { recursive?: boolean; mode?: number }) => {
    const first = orig.mkdirSync(path, options);
    if (first !== undefined) events.push({ op: 'mkdir', path: resolve(first) });
    return first;
  };
  return { ...fs, default: fs } as unknown as Fs;
}

/** node:fs/promises with `open` (and the FileHandle's syncs) and `rename` recorded. */
export function recordingFsPromises(orig: FsPromises): FsPromises {
  const fs: Record<string, unknown> = { ...orig };
  fs.open = async (path: string, flags?: string | number, mode?: number) => {
    let existed = true;
    await orig.access(path).catch(() => (existed = false));
    const fh = await orig.open(path, flags, mode);
    noteOpen(path, fh.fd, existed, flags ?? 'r');
    const sync = (name: 'sync' | 'datasync') => async () => {
      await fh[name]();
      noteFsync(fh.fd);
    };
    return new Proxy(fh, {
      get: (target, key) => (key === 'sync' || key === 'datasync' ? sync(key) : Reflect.get(target, key, target)),
    });
  };
  fs.rename = async (from: string, to: string) => {
    await orig.rename(from, to);
    events.push({ op: 'rename', from: resolve(from), to: resolve(to) });
  };
  return { ...fs, default: fs } as unknown as FsPromises;
}

/**
 * The directory entries recorded (new files outside `*.tmp`, renames, new directories) that no
 * later fsync of their directory made durable, as readable lines; [] when every one was.
 */
export function unsyncedEntries(list: readonly FsEvent[] = events): string[] {
  const problems: string[] = [];
  list.forEach((e, i) => {
    if (e.op === 'fsync') return;
    if (e.op === 'create' && /\.tmp(-\d+)?$/.test(e.path)) return;
    const entry = e.op === 'rename' ? e.to : e.path;
    const synced = list.slice(i + 1).some((later) => later.op === 'fsync' && later.path === dirname(entry));
    if (!synced)
      problems.push(
        e.op === 'rename' ? `rename ${e.from} -> ${e.to} without an fsync of ${dirname(entry)}` : `${e.op} ${entry} without an fsync of ${dirname(entry)}`,
      );
  });
  return problems;
}

/** How many directory entries were recorded (a check that found none proves nothing). */
export const entriesMade = (list: readonly FsEvent[] = events): number => list.filter((e) => e.op !== 'fsync').length;

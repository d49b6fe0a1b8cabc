/**
 * The commit journal's file as space reused (journal-layout.ts): zero-filled once to its size, its
 * header written at each checkpoint, and the bytes of a batch the disk refused zeroed again. All
 * of these overwrite blocks the file already has (no size change, nothing for the filesystem's
 * own journal to commit), except the one zero-fill that grows a new or small file.
 */
import { closeSync, fdatasyncSync, fstatSync, openSync, writeSync } from 'node:fs';
import { writeAll, writeAllSync } from './file-sync.ts';
import { headerSlot, type JournalHeader } from './journal-layout.ts';

/** Zeros written per write while a journal is grown. */
const ZERO_CHUNK_BYTES = 1024 * 1024;

/**
 * Grows the file at `path` to `size` bytes of zeros (written, not a hole: a hole's blocks would be
 * allocated by the first record's write, a metadata change each time) and syncs it; its length
 * afterwards. A file already that long is left as it is.
 */
export function preallocateSync(path: string, size: number): number {
  const fd = openSync(path, 'r+');
  try {
    let at = fstatSync(fd).size;
    if (at >= size) return at;
    const zeros = Buffer.alloc(Math.min(ZERO_CHUNK_BYTES, size - at));
    for (; at < size; ) at += writeSync(fd, zeros, 0, Math.min(zeros.length, size - at), at);
    fdatasyncSync(fd);
    return at;
  } finally {
    closeSync(fd);
  }
}

/** Writes `header` into its slot on `fd` (opened `O_DSYNC`: durable when this returns), at start-up. */
export function writeHeaderSync(fd: number, header: JournalHeader): void {
  const { position, bytes } = headerSlot(header);
  writeAllSync(fd, bytes, position);
}

/** Writes `header` into its slot on `fd` (opened `O_DSYNC`), at a checkpoint. */
export async function writeHeader(fd: number, header: JournalHeader): Promise<void> {
  const { position, bytes } = headerSlot(header);
  await writeAll(fd, bytes, position);
}

/** Zeros `length` bytes at `position` on `fd` (opened `O_DSYNC`): what a refused batch left is no record. */
export async function erase(fd: number, position: number, length: number): Promise<void> {
  if (length > 0) await writeAll(fd, Buffer.alloc(length), position);
}

/** Errors by which the disk refuses a write it did not take: no room, a size limit, a quota (or a test's scripted refusal, which has no code). */
const REFUSALS = new Set(['ENOSPC', 'EFBIG', 'EDQUOT']);
export const refusedByTheDisk = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === undefined || REFUSALS.has(code);
};

/** A batch the disk refused before any of it was acknowledged; the journal is intact and goes on. */
export class RefusedBatch extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

/**
 * Appending lines to a log file so that one failed append cannot spoil the next. Two traps:
 * - `FileHandle.write` may write part of its text and resolve (a full disk, a file-size limit):
 *   the rest is silently missing. The whole text is written here, or the append rejects.
 * - A failed append can leave a torn line at the end of the file. The next record written after it
 *   would be glued onto that fragment and be unreadable at the next start. So after a failure the
 *   next append begins with a newline: the fragment stays a line of its own, which every reader
 *   skips (they skip lines they cannot parse), and the records after it read back whole.
 */
import type { FileHandle } from 'node:fs/promises';

/** Appends to one log file; the state it keeps is whether the last append failed. */
export interface LineAppender {
  /** Writes `text` (whole lines) at the end of `fh` (opened for append) and fdatasyncs it. */
  append(fh: FileHandle, text: string): Promise<void>;
  /** The file was rewritten whole (no torn tail any more). */
  rewritten(): void;
}

/** One appender per log file. */
export function createLineAppender(): LineAppender {
  let mayBeTorn = false;
  return {
    async append(fh, text) {
      try {
        await fh.writeFile(mayBeTorn ? `\n${text}` : text);
        await fh.datasync();
        mayBeTorn = false;
      } catch (err) {
        mayBeTorn = true;
        throw err;
      }
    },
    rewritten() {
      mayBeTorn = false;
    },
  };
}

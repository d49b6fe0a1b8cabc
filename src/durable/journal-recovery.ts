/**
 * Start-up half of the commit journal: before any store reads its files, every write the journal
 * holds is put back where it belongs. The journal holds exactly the writes made since the last
 * checkpoint (which synced every file and emptied it), each with its file and byte offset, so a
 * file is cut to where its first journaled write began (it was on disk there) and the writes are
 * laid down again in order: whatever the crash left of them (nothing, a part, bytes out of
 * order after a power loss) is replaced by what was acknowledged. Then the files are synced and
 * the journal emptied. A journal line that does not parse is a torn tail only when nothing
 * readable follows it; otherwise the journal is corrupt and the start stops.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ensureFileSync } from './atomic-replace.ts';
import { makeDirSync, truncateDurablySync } from './file-sync.ts';

/** One write as the journal records it: the file (relative to the journal's directory), its byte offset, its text. */
export type JournalEntry = readonly [name: string, offset: number, text: string];

/** What the recovery put back. */
export interface JournalRecoveryReport {
  /** Commits found complete in the journal. */
  readonly commits: number;
  /** Files written again, by name, with the bytes laid down. */
  readonly files: Readonly<Record<string, number>>;
  /** Bytes of a torn last line cut off the journal (a commit never acknowledged). */
  readonly tornBytes: number;
}

const parseLine = (line: string): JournalEntry[] | null => {
  try {
    const parsed = JSON.parse(line) as { w?: unknown };
    if (!Array.isArray(parsed?.w)) return null;
    for (const w of parsed.w)
      if (!Array.isArray(w) || typeof w[0] !== 'string' || !Number.isSafeInteger(w[1]) || w[1] < 0 || typeof w[2] !== 'string') return null;
    return parsed.w as JournalEntry[];
  } catch {
    return null;
  }
};

/** The journal's complete commits, in order, and the bytes after the last good line (a torn tail). */
function readCommits(path: string): { commits: JournalEntry[][]; tornBytes: number } {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const commits: JournalEntry[][] = [];
  let good = 0;
  let bad: number | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // The piece after the last newline is '' for a whole file, or a line torn by the crash.
    const complete = i < lines.length - 1;
    const parsed = complete ? parseLine(line) : null;
    if (parsed && bad !== null)
      throw new Error(`commit journal ${path} corrupt at line ${bad + 1}: readable commits follow an unreadable one; refusing to start`);
    if (parsed) {
      commits.push(parsed);
      good += Buffer.byteLength(line) + 1;
    } else if (line !== '' || complete) bad ??= i;
  }
  return { commits, tornBytes: Buffer.byteLength(text) - good };
}

/** Lays `writes` (one file's, in order) down again from the first one's offset, and syncs the file. */
function rewrite(path: string, writes: readonly JournalEntry[]): number {
  makeDirSync(dirname(path));
  ensureFileSync(path);
  const fd = openSync(path, 'r+');
  try {
    const from = writes[0]![1];
    // The first journaled write began at the file's length as of the last checkpoint, which synced it.
    if (fstatSync(fd).size < from) throw new Error(`${path} is shorter than the commit journal's first write to it (byte ${from}); refusing to start`);
    let end = from;
    for (const [, offset, text] of writes) {
      if (offset !== end) throw new Error(`commit journal's writes to ${path} are not contiguous at byte ${offset}; refusing to start`);
      const buf = Buffer.from(text);
      let done = 0;
      while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done, offset + done);
      end += buf.length;
    }
    truncateDurablySync(fd, end);
    return end - from;
  } finally {
    closeSync(fd);
  }
}

/** Puts back every write the journal at `path` holds, into the files under `dir`; then empties the journal. */
export function recoverJournalSync(dir: string, path: string): JournalRecoveryReport {
  if (!existsSync(path)) return { commits: 0, files: {}, tornBytes: 0 };
  const { commits, tornBytes } = readCommits(path);
  const byFile = new Map<string, JournalEntry[]>();
  for (const commit of commits)
    for (const entry of commit) {
      if (entry[0].split('/').includes('..')) throw new Error(`commit journal ${path} names a file outside its directory; refusing to start`);
      const list = byFile.get(entry[0]) ?? [];
      list.push(entry);
      byFile.set(entry[0], list);
    }
  const files: Record<string, number> = {};
  for (const [name, writes] of byFile) files[name] = rewrite(resolve(dir, name), writes);
  const fd = openSync(path, 'r+');
  try {
    truncateDurablySync(fd, 0);
  } finally {
    closeSync(fd);
  }
  return { commits: commits.length, files, tornBytes };
}

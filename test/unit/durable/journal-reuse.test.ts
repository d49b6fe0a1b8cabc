/**
 * The commit journal's preallocated layout (src/durable/journal-layout.ts): the file is zero-filled
 * once and reused, a checkpoint starts a new generation by its header instead of cutting the file,
 * and every record carries its sequence number and a CRC. So what follows the last record is zeros
 * or an older generation's bytes, and recovery must tell a commit of this generation from
 * everything else: older records (smaller numbers), torn records (CRC), records lost in the middle
 * (a whole record of this generation after an unreadable one), a header slot torn at a checkpoint.
 */
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE_NAME, openCommitJournal, PREALLOCATED_SLACK_BYTES } from '../../../src/durable/commit-journal.ts';
import type { JournalFileIo } from '../../../src/durable/journal-file.ts';
import { DATA_START, HEADER_SLOT_BYTES, readRecordAt } from '../../../src/durable/journal-layout.ts';
import { readJournalSync } from '../../../src/durable/journal-recovery.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'journal-reuse-'));
  dirs.push(d);
  return d;
};
const never = () => new Promise<void>(() => {});
const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
const journalOf = (dir: string) => join(dir, JOURNAL_FILE_NAME);
/** Overwrites `bytes` at `position` of the journal in `dir` (what a crash or a power loss left there). */
function scribble(dir: string, position: number, bytes: Buffer): void {
  const fd = openSync(journalOf(dir), 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, position);
  } finally {
    closeSync(fd);
  }
}
/** The byte offsets of the records at the start of the journal in `dir`, in order, as far as they read. */
function recordStarts(dir: string): number[] {
  const buf = readFileSync(journalOf(dir));
  const starts: number[] = [];
  for (let at = DATA_START, r = readRecordAt(buf, at); r !== null; at = r.end, r = readRecordAt(buf, at)) starts.push(at);
  return starts;
}

/** Commits `texts` (one commit each, one batch) to f.log in `dir`, the process then held before the files get their bytes (a crash there). */
async function crashBeforeFiles(dir: string, texts: readonly string[], checkpointBytes?: number): Promise<void> {
  let reached!: () => void;
  const held = new Promise<void>((r) => (reached = r));
  const journal = openCommitJournal({
    dir,
    ...(checkpointBytes === undefined ? {} : { checkpointBytes }),
    seam: (point) => {
      if (point === 'journal') return Promise.resolve();
      reached();
      return never();
    },
  });
  const f = journal.file(join(dir, 'f.log'));
  for (const text of texts) void journal.commit([{ file: f, text }]);
  await held;
}

describe('commit journal, preallocated and reused', () => {
  it('is zero-filled once to its size and never grows or shrinks: records overwrite it, a checkpoint writes its header', async () => {
    const dir = freshDir();
    const journal = openCommitJournal({ dir, checkpointBytes: 64 });
    const size = statSync(journalOf(dir)).size;
    expect(size).toBe(DATA_START + 64 + PREALLOCATED_SLACK_BYTES);
    const f = journal.file(join(dir, 'f.log'));
    for (let i = 0; i < 20; i++) await journal.commit([{ file: f, text: `line ${i}\n` }]);
    expect(journal.stats().checkpoints).toBeGreaterThan(5);
    expect(statSync(journalOf(dir)).size).toBe(size);
    await journal.close();
    expect(readJournalSync(journalOf(dir))).toMatchObject({ commits: [], legacy: false });
    expect(read(join(dir, 'f.log'))).toBe(Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join(''));
  });

  it("an older generation's whole records behind the last one are not laid down again: their numbers are older", async () => {
    const dir = freshDir();
    const journal = openCommitJournal({ dir, checkpointBytes: 1 });
    const f = journal.file(join(dir, 'f.log'));
    const long = ['a'.repeat(300), 'b'.repeat(300), 'c'.repeat(300)].map((t) => `${t}\n`);
    // One batch of three records, then a checkpoint before the next batch: a new generation.
    await Promise.all(long.map((text) => journal.commit([{ file: f, text }])));
    await journal.commit([{ file: f, text: 'short\n' }]);
    await journal.close();
    // The newest generation's one short record, then the old second and third records, whole.
    const buf = readFileSync(journalOf(dir));
    expect(buf.includes(Buffer.from(long[1]!))).toBe(true);
    expect(buf.includes(Buffer.from(long[2]!))).toBe(true);
    const before = read(join(dir, 'f.log'));
    await crashBeforeFiles(dir, ['after\n']);
    const again = openCommitJournal({ dir });
    expect(again.recovery).toMatchObject({ commits: 1, tornBytes: 0 });
    expect(read(join(dir, 'f.log'))).toBe(`${before}after\n`);
    await again.close();
    // Laid down once: the next start finds nothing to lay down.
    expect(openCommitJournal({ dir }).recovery.commits).toBe(0);
  });

  it('a record whose end landed and whose middle did not (zeros inside, as a power loss leaves) is cut: its CRC does not match', async () => {
    const dir = freshDir();
    const first = openCommitJournal({ dir });
    await first.commit([{ file: first.file(join(dir, 'f.log')), text: 'whole\n' }]);
    await first.close();
    await crashBeforeFiles(dir, [`${'x'.repeat(2000)}\n`]);
    const [torn] = recordStarts(dir);
    scribble(dir, torn! + 1000, Buffer.alloc(600));
    const again = openCommitJournal({ dir });
    expect(again.recovery.commits).toBe(0);
    expect(again.recovery.tornBytes).toBeGreaterThan(0);
    expect(read(join(dir, 'f.log'))).toBe('whole\n');
    await again.close();
  });

  it('a whole record of a later batch after an unreadable one (an acknowledged record lost) stops the start', async () => {
    const dir = freshDir();
    let hold = false;
    let reached!: () => void;
    const held = new Promise<void>((r) => (reached = r));
    const journal = openCommitJournal({
      dir,
      seam: (point) => {
        if (point === 'journal' || !hold) return Promise.resolve();
        reached();
        return never();
      },
    });
    const f = journal.file(join(dir, 'f.log'));
    // One batch of two, acknowledged; then a batch of one, written to the journal, the files never.
    await Promise.all(['one\n', 'two\n'].map((text) => journal.commit([{ file: f, text }])));
    hold = true;
    void journal.commit([{ file: f, text: 'three\n' }]);
    await held;
    const starts = recordStarts(dir);
    expect(starts).toHaveLength(3);
    scribble(dir, starts[1]! + 12, Buffer.from('#'));
    expect(() => openCommitJournal({ dir })).toThrow(/corrupt after record 1/);
  });

  it("a power loss in the middle of a batch's write (its first record's pages never landed, its later ones did) is a torn batch: the start goes on, nothing of it laid down", async () => {
    const dir = freshDir();
    const first = openCommitJournal({ dir });
    await first.commit([{ file: first.file(join(dir, 'f.log')), text: 'before\n' }]);
    await first.close();
    // One batch of three records, one O_DSYNC write that never returned: the device kept the
    // pages of the second and third records and not those of the first (zeros where it was).
    await crashBeforeFiles(dir, ['one\n', 'two\n', 'three\n']);
    const starts = recordStarts(dir);
    expect(starts).toHaveLength(3);
    scribble(dir, starts[0]! + 9, Buffer.alloc(starts[1]! - starts[0]! - 9));
    const again = openCommitJournal({ dir });
    expect(again.recovery.commits).toBe(0);
    expect(read(join(dir, 'f.log'))).toBe('before\n');
    await again.close();
  });

  it("a torn batch's whole records left behind are never laid down later, even where a new record ends just before one of them", async () => {
    const dir = freshDir();
    const first = openCommitJournal({ dir });
    await first.commit([{ file: first.file(join(dir, 'f.log')), text: 'before\n' }]);
    await first.close();
    await crashBeforeFiles(dir, ['one\n', 'two\n', 'three\n']);
    const starts = recordStarts(dir);
    scribble(dir, starts[0]! + 9, Buffer.alloc(starts[1]! - starts[0]! - 9));
    // The start after the power loss commits a record as long as the lost one, at the same place,
    // and is killed before its files: the old second record now follows it in the journal.
    await crashBeforeFiles(dir, ['ONE\n']);
    expect(recordStarts(dir).slice(0, 2)).toEqual(starts.slice(0, 2));
    const again = openCommitJournal({ dir });
    expect(again.recovery.commits).toBe(1);
    expect(read(join(dir, 'f.log'))).toBe('before\nONE\n');
    await again.close();
  });

  it("a header slot torn at a checkpoint: the other slot's generation is laid down again, which changes nothing", async () => {
    const dir = freshDir();
    await crashBeforeFiles(dir, ['one\n', 'two\n']);
    // This start lays both down and writes the next generation's header into the other slot.
    const second = openCommitJournal({ dir });
    expect(second.recovery.commits).toBe(2);
    await second.drain();
    scribble(dir, HEADER_SLOT_BYTES + 3, Buffer.from('torn'));
    const third = openCommitJournal({ dir });
    expect(third.recovery.commits).toBe(2);
    expect(read(join(dir, 'f.log'))).toBe('one\ntwo\n');
    await third.close();
  });

  it('a journal without a readable header but with bytes in it is not taken for an empty one', () => {
    const dir = freshDir();
    openCommitJournal({ dir });
    scribble(dir, 0, Buffer.from('0123abcd torn'));
    scribble(dir, HEADER_SLOT_BYTES, Buffer.from('0123abcd torn'));
    expect(() => openCommitJournal({ dir })).toThrow(/no readable header/);
  });

  it('a file the disk refuses takes its batch back: the files cut to where they were, the record zeroed, the journal goes on', async () => {
    const dir = freshDir();
    const journal = openCommitJournal({ dir });
    const a = journal.file(join(dir, 'a.log')) as JournalFileIo;
    const b = journal.file(join(dir, 'b.log')) as JournalFileIo;
    await journal.commit([
      { file: a, text: 'a1\n' },
      { file: b, text: 'b1\n' },
    ]);
    const write = b.write.bind(b);
    let refuse = true;
    // The disk takes two bytes of b's write, then has no room (b grows; the journal is preallocated).
    b.write = (buf, position) => {
      if (!refuse) return write(buf, position);
      write(buf.subarray(0, 2), position);
      throw Object.assign(new Error('no space left on device (scripted)'), { code: 'ENOSPC' });
    };
    const refused = journal.commit([
      { file: a, text: 'a2\n' },
      { file: b, text: 'b2\n' },
    ]);
    await expect(refused).rejects.toThrow(/no space left/);
    expect(journal.failure()).toBeNull();
    expect([read(join(dir, 'a.log')), read(join(dir, 'b.log'))]).toEqual(['a1\n', 'b1\n']);
    expect(readJournalSync(journalOf(dir)).commits).toHaveLength(1);
    refuse = false;
    await journal.commit([
      { file: a, text: 'a3\n' },
      { file: b, text: 'b3\n' },
    ]);
    expect([read(join(dir, 'a.log')), read(join(dir, 'b.log'))]).toEqual(['a1\na3\n', 'b1\nb3\n']);
    await journal.drain();
    // A start after it lays down what was acknowledged and nothing of the refused batch.
    const again = openCommitJournal({ dir });
    expect(again.recovery.commits).toBe(2);
    expect([read(join(dir, 'a.log')), read(join(dir, 'b.log'))]).toEqual(['a1\na3\n', 'b1\nb3\n']);
    await again.close();
  });
});

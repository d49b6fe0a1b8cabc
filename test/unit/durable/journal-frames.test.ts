/**
 * The commit journal's records (src/durable/frame-batch.ts, journal-recovery.ts): a header line
 * with each write's file, offset and length, the writes' bytes as they are, a newline. What a
 * crash leaves is read back byte for byte. The journals written by hand here are of the earlier,
 * headerless forms (framed records without sequence or CRC, and one JSON line per commit), which a
 * start still reads: a torn record is cut, an unreadable one followed by a readable one stops the
 * start. The preallocated layout's own rules are in journal-reuse.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE_NAME, openCommitJournal } from '../../../src/durable/commit-journal.ts';
import { readJournalSync } from '../../../src/durable/journal-recovery.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'journal-frames-'));
  dirs.push(d);
  return d;
};
const never = () => new Promise<void>(() => {});
const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
/** A framed record of the earlier, headerless form. */
const record = (writes: ReadonlyArray<readonly [string, number, string]>) =>
  `${JSON.stringify({ f: writes.map(([name, offset, text]) => [name, offset, Buffer.byteLength(text)]) })}\n${writes.map((w) => w[2]).join('')}\n`;

/** Commits `texts` to f.log in `dir` with the process held before the files get their bytes (a crash there). */
async function crashBeforeFiles(dir: string, texts: readonly string[]): Promise<void> {
  let reached!: () => void;
  const held = new Promise<void>((r) => (reached = r));
  const journal = openCommitJournal({
    dir,
    seam: (point) => {
      if (point === 'journal') return Promise.resolve();
      reached();
      return never();
    },
  });
  const f = journal.file(join(dir, 'f.log'));
  void journal.commit(texts.map((text) => ({ file: f, text })));
  await held;
}

describe('commit journal records', () => {
  it('a text is written unescaped and laid down again byte for byte (quotes, backslashes, newlines, non-ASCII)', async () => {
    const dir = freshDir();
    const texts = ['{"k":"a \\"quoted\\" value"}\n', 'line one\nline two\n', 'é€😀 and no newline at the end'];
    await crashBeforeFiles(dir, texts);
    const journalPath = join(dir, JOURNAL_FILE_NAME);
    // The texts ride as they are: escaping them into JSON would double the backslashes.
    expect(readFileSync(journalPath).includes(Buffer.from(`,"f":[["f.log",0,27],["f.log",27,18],["f.log",45,35]]}\n${texts.join('')}\n`))).toBe(true);
    expect(readJournalSync(journalPath).commits).toEqual([
      [
        ['f.log', 0, texts[0]!],
        ['f.log', Buffer.byteLength(texts[0]!), texts[1]!],
        ['f.log', Buffer.byteLength(texts[0]! + texts[1]!), texts[2]!],
      ],
    ]);
    expect(read(join(dir, 'f.log'))).toBe('');
    const again = openCommitJournal({ dir });
    expect(again.recovery).toMatchObject({ commits: 1, tornBytes: 0 });
    expect(read(join(dir, 'f.log'))).toBe(texts.join(''));
    await again.close();
  });

  it('a record torn inside its body (a commit never acknowledged) is cut, and nothing of it reaches a file', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'f.log'), '');
    const whole = record([['f.log', 0, 'whole\n']]);
    const torn = record([['f.log', 6, '{"k":1}\n{"w":[["f.log",0,"x"]]}\n']]).slice(0, -10);
    writeFileSync(join(dir, JOURNAL_FILE_NAME), whole + torn);
    const journal = openCommitJournal({ dir });
    expect(journal.recovery).toMatchObject({ commits: 1, tornBytes: Buffer.byteLength(torn) });
    expect(read(join(dir, 'f.log'))).toBe('whole\n');
  });

  it('a record whose body does not end where its header says is unreadable: a readable one after it stops the start', () => {
    const dir = freshDir();
    const lying = `${JSON.stringify({ f: [['f.log', 0, 3]] })}\nabcdef\n`;
    writeFileSync(join(dir, JOURNAL_FILE_NAME), lying + record([['f.log', 0, 'x\n']]));
    expect(() => openCommitJournal({ dir })).toThrow(/corrupt at line 1/);
  });

  it('refuses a header with a negative or fractional length', () => {
    for (const length of [-1, 1.5]) {
      const dir = freshDir();
      writeFileSync(join(dir, JOURNAL_FILE_NAME), `${JSON.stringify({ f: [['f.log', 0, length]] })}\nx\n${record([['f.log', 0, 'y\n']])}`);
      expect(() => openCommitJournal({ dir })).toThrow(/corrupt at line 1/);
    }
  });

  it('reads the earlier form (one JSON line per commit) beside the framed one', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'f.log'), '');
    writeFileSync(join(dir, JOURNAL_FILE_NAME), `${JSON.stringify({ w: [['f.log', 0, 'old\n']] })}\n${record([['f.log', 4, 'new\n']])}`);
    const journal = openCommitJournal({ dir });
    expect(journal.recovery).toMatchObject({ commits: 2, tornBytes: 0 });
    expect(read(join(dir, 'f.log'))).toBe('old\nnew\n');
  });
});

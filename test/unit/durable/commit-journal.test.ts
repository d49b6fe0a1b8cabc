/**
 * The commit journal (src/durable/commit-journal.ts): one fdatasync for every commit of a batch,
 * commit order fixed when a place is reserved, and recovery that lays down exactly the
 * acknowledged commits whatever a crash left of their files. A crash is a journal whose process
 * is held at a seam forever (its files as they are) and a new journal opened on the directory.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JOURNAL_FILE_NAME, openCommitJournal } from '../../../src/durable/commit-journal.ts';
import { readJournalSync } from '../../../src/durable/journal-recovery.ts';
import { createLedger } from '../../../src/ledger/ledger.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'commit-journal-'));
  dirs.push(d);
  return d;
};
const never = () => new Promise<void>(() => {});
const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
/** Commits the journal in `dir` holds: those a start would lay down (older generations' bytes left in the file are not). */
const heldCommits = (dir: string) => readJournalSync(join(dir, JOURNAL_FILE_NAME)).commits.length;

describe('commit journal', () => {
  it('makes concurrent commits durable with one fdatasync, each file getting its lines in commit order', async () => {
    const dir = freshDir();
    const journal = openCommitJournal({ dir });
    const a = journal.file(join(dir, 'a.log'));
    const b = journal.file(join(dir, 'b.log'));
    const commits = Array.from({ length: 20 }, (_, i) =>
      journal.commit([
        { file: a, text: `a${i}\n` },
        { file: b, text: `b${i}\n` },
      ]),
    );
    await Promise.all(commits);
    expect(journal.stats()).toMatchObject({ commits: 20, syncs: 1, maxBatch: 20 });
    expect(read(join(dir, 'a.log'))).toBe(Array.from({ length: 20 }, (_, i) => `a${i}\n`).join(''));
    expect(read(join(dir, 'b.log'))).toBe(Array.from({ length: 20 }, (_, i) => `b${i}\n`).join(''));
    await journal.close();
  });

  it('an idle loop writes a lone commit on the loop: asked only for batches of one, durable alike, replayed alike after a crash', async () => {
    const dir = freshDir();
    let asked = 0;
    const journal = openCommitJournal({ dir, writeInline: () => (asked++, true) });
    const f = journal.file(join(dir, 'f.log'));
    await journal.commit([{ file: f, text: 'one\n' }]);
    expect(asked).toBe(1);
    // Three at once are one batch: the pool writes it, the idle question is not asked.
    await Promise.all(['a', 'b', 'c'].map((t) => journal.commit([{ file: f, text: `${t}\n` }])));
    expect(asked).toBe(1);
    expect(journal.stats()).toMatchObject({ commits: 4, syncs: 2 });
    // Written on the loop, then the process held before the files get their bytes: the next start lays it down.
    const crashed = openCommitJournal({ dir: freshDir(), writeInline: () => true, seam: (point) => (point === 'files' ? never() : Promise.resolve()) });
    const g = crashed.file(join(crashed.dir, 'g.log'));
    void crashed.commit([{ file: g, text: 'kept\n' }]);
    await vi.waitUntil(() => crashed.stats().syncs === 1);
    expect(read(join(crashed.dir, 'g.log'))).toBe('');
    expect(openCommitJournal({ dir: crashed.dir }).recovery.commits).toBe(1);
    expect(read(join(crashed.dir, 'g.log'))).toBe('kept\n');
    await journal.close();
  });

  it('unhurried commits (no answer waits for them) wait for company: filled turns apart they share one write, which a hurried commit or a drain brings at once', async () => {
    const dir = freshDir();
    let asked = 0;
    const journal = openCommitJournal({ dir, writeInline: () => ++asked > 0, unhurriedGatherMs: 600_000 });
    const f = journal.file(join(dir, 'f.log'));
    const turn = () => new Promise((r) => setImmediate(r));
    const first = journal.commit([{ file: f, text: 'confirmed 1\n' }], { unhurried: true });
    await turn();
    await turn();
    const second = journal.commit([{ file: f, text: 'confirmed 2\n' }], { unhurried: true });
    await turn();
    expect(journal.stats().syncs).toBe(0);
    // A paid call's commit ends the wait: one write for the three, on the idle loop (one hurried commit in it).
    await Promise.all([first, second, journal.commit([{ file: f, text: 'paid\n' }])]);
    expect(journal.stats()).toMatchObject({ commits: 3, syncs: 1 });
    expect(asked).toBe(1);
    const third = journal.commit([{ file: f, text: 'confirmed 3\n' }], { unhurried: true });
    await turn();
    await journal.drain();
    await third;
    expect(journal.stats()).toMatchObject({ commits: 4, syncs: 2 });
    expect(read(join(dir, 'f.log'))).toBe('confirmed 1\nconfirmed 2\npaid\nconfirmed 3\n');
    await journal.close();
  });

  it("writes only the last of one commit's writes to the same record (file and key); other keys, files and commits keep theirs", async () => {
    const dir = freshDir();
    const journal = openCommitJournal({ dir });
    const a = journal.file(join(dir, 'a.log'));
    const b = journal.file(join(dir, 'b.log'));
    const durable: string[] = [];
    const w = (file: typeof a, text: string, key?: string) => ({ file, text, ...(key ? { key } : {}), onDurable: () => void durable.push(text) });
    await journal.commit([w(a, 'charge k1\n', 'k1'), w(a, 'other k2\n', 'k2'), w(b, 'k1 of b\n', 'k1'), w(a, 'plain\n'), w(a, 'kept k1\n', 'k1')]);
    await journal.commit([w(a, 'next commit k1\n', 'k1')]);
    expect(read(join(dir, 'a.log'))).toBe('other k2\nplain\nkept k1\nnext commit k1\n');
    expect(read(join(dir, 'b.log'))).toBe('k1 of b\n');
    expect(durable).not.toContain('charge k1\n');
    await journal.close();
    // What a restart lays down from the journal is what the files got.
    const again = openCommitJournal({ dir });
    again.file(join(dir, 'a.log'));
    expect(read(join(dir, 'a.log'))).toBe('other k2\nplain\nkept k1\nnext commit k1\n');
    await again.close();
  });

  it('orders commits by their reserved place, not by when they were filled', async () => {
    const dir = freshDir();
    const journal = openCommitJournal({ dir });
    const f = journal.file(join(dir, 'f.log'));
    const offsets: Array<[string, number]> = [];
    const first = journal.reserve();
    const second = journal.reserve();
    const late = second.fill([{ file: f, text: 'second\n', onDurable: (o) => offsets.push(['second', o]) }]);
    await new Promise((r) => setImmediate(r));
    // The second waits for the first place: nothing is written ahead of it.
    expect(read(join(dir, 'f.log'))).toBe('');
    await Promise.all([first.fill([{ file: f, text: 'first\n', onDurable: (o) => offsets.push(['first', o]) }]), late]);
    expect(read(join(dir, 'f.log'))).toBe('first\nsecond\n');
    expect(offsets).toEqual([
      ['first', 0],
      ['second', 6],
    ]);
    await journal.close();
  });

  it('a crash after the journal is synced and before the files are written: the next start lays the commit down', async () => {
    const dir = freshDir();
    const path = join(dir, 'state', 'f.log');
    const before = openCommitJournal({ dir });
    const f = before.file(path);
    await before.commit([{ file: f, text: 'kept-1\n' }]);
    let reached!: () => void;
    const held = new Promise<void>((r) => (reached = r));
    // The same directory, held at the seam forever: a process killed between the two writes.
    const journal2 = openCommitJournal({
      dir,
      seam: (point) => {
        if (point === 'journal') return Promise.resolve();
        reached();
        return never();
      },
    });
    const f2 = journal2.file(path);
    void journal2.commit([{ file: f2, text: 'kept-2\n' }]);
    await held;
    expect(read(path)).toBe('kept-1\n');
    const after = openCommitJournal({ dir });
    expect(after.recovery.commits).toBeGreaterThanOrEqual(1);
    expect(read(path)).toBe('kept-1\nkept-2\n');
    expect(heldCommits(dir)).toBe(0);
    await after.close();
  });

  it("bytes a power loss garbled in a file after its journal record are replaced by the record's", async () => {
    const dir = freshDir();
    const path = join(dir, 'f.log');
    const journal = openCommitJournal({ dir });
    const f = journal.file(path);
    await journal.commit([{ file: f, text: 'one\n' }]);
    await journal.commit([{ file: f, text: 'two\n' }]);
    // The file's last page lost, then zeros where it was: the journal still holds both commits.
    truncateSync(path, 2);
    appendFileSync(path, Buffer.alloc(9));
    openCommitJournal({ dir });
    expect(read(path)).toBe('one\ntwo\n');
  });

  it('a torn last journal line (a commit never acknowledged) is cut, and nothing of it reaches a file', () => {
    const dir = freshDir();
    const path = join(dir, 'f.log');
    writeFileSync(path, '');
    writeFileSync(join(dir, JOURNAL_FILE_NAME), `${JSON.stringify({ w: [['f.log', 0, 'whole\n']] })}\n{"w":[["f.log",6,"tor`);
    const journal = openCommitJournal({ dir });
    expect(journal.recovery).toMatchObject({ commits: 1, tornBytes: 21 });
    expect(read(path)).toBe('whole\n');
  });

  it('refuses to start on a journal whose unreadable line is followed by a readable one', () => {
    const dir = freshDir();
    const good = JSON.stringify({ w: [['f.log', 0, 'x\n']] });
    writeFileSync(join(dir, JOURNAL_FILE_NAME), `not json\n${good}\n`);
    expect(() => openCommitJournal({ dir })).toThrow(/corrupt at line 1/);
  });

  it('refuses to start on a journal naming a file outside its directory', () => {
    const dir = freshDir();
    writeFileSync(join(dir, JOURNAL_FILE_NAME), `${JSON.stringify({ w: [['../escape.log', 0, 'x\n']] })}\n`);
    expect(() => openCommitJournal({ dir })).toThrow(/outside its directory/);
    expect(existsSync(join(dir, '..', 'escape.log'))).toBe(false);
  });

  it('checkpoints past its size bound: files synced, the journal emptied, then the owners compact (and never between)', async () => {
    const dir = freshDir();
    let t = 0;
    const journal = openCommitJournal({ dir, checkpointBytes: 200, now: () => t });
    const path = join(dir, 'f.log');
    const f = journal.file(path);
    const compactions: number[] = [];
    journal.onCheckpoint(async () => {
      compactions.push(heldCommits(dir));
      await f.replace('compacted\n');
    });
    for (let i = 0; i < 10; i++) await journal.commit([{ file: f, text: `line ${i}\n` }]);
    expect(journal.stats().checkpoints).toBeGreaterThan(0);
    // Every compaction ran with the journal empty: no record names an offset in the old file.
    expect(compactions.every((commits) => commits === 0)).toBe(true);
    t += 1;
    await journal.close();
    // Reopened: nothing in the journal, and the file is whole (the last compaction, then what followed).
    const again = openCommitJournal({ dir });
    expect(again.recovery.commits).toBe(0);
    expect(read(path).startsWith('compacted\n')).toBe(true);
    await again.close();
  });

  it('a batch the disk refuses is cut from the journal and rejected, and the next commit goes through', async () => {
    const dir = freshDir();
    let refuse = true;
    const journal = openCommitJournal({
      dir,
      seam: async (point) => {
        if (point === 'journal' && refuse) throw new Error('EFBIG (scripted)');
      },
    });
    const f = journal.file(join(dir, 'f.log'));
    await expect(journal.commit([{ file: f, text: 'refused\n' }])).rejects.toThrow(/EFBIG/);
    expect(journal.failure()).toBeNull();
    refuse = false;
    await journal.commit([{ file: f, text: 'taken\n' }]);
    expect(read(join(dir, 'f.log'))).toBe('taken\n');
    expect(read(join(dir, JOURNAL_FILE_NAME))).not.toContain('refused');
    await journal.close();
  });

  it('a refused batch takes every entry chained after it along; the ledger goes on from its last durable entry, without a hole', async () => {
    const dir = freshDir();
    let refuse = false;
    const journal = openCommitJournal({
      dir,
      seam: async (point) => {
        if (point === 'journal' && refuse) {
          refuse = false;
          throw new Error('ENOSPC (scripted)');
        }
      },
    });
    const ledger = await createLedger({ dir: join(dir, 'ledger'), journal, nodeStore: 'memory' });
    await ledger.append({ kind: 'audit', event: 'first' });
    // A draft that cannot be sealed takes no place in the journal's order: nothing waits behind it.
    await expect(ledger.append({ kind: 'audit', event: 'Not An Event Code' })).rejects.toThrow();
    refuse = true;
    // Three appends of one turn: one batch, refused whole; a fourth, ordered after them, is refused too.
    const refused = [1, 2, 3].map((i) => ledger.append({ kind: 'audit', event: `refused-${i}` }));
    const chained = ledger.append({ kind: 'audit', event: 'chained-after' });
    const outcomes = await Promise.allSettled([...refused, chained]);
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    const next = await ledger.append({ kind: 'audit', event: 'after' });
    expect(next.index).toBe(1);
    await ledger.close();
    await journal.close();
    const again = openCommitJournal({ dir });
    const reopened = await createLedger({ dir: join(dir, 'ledger'), journal: again, nodeStore: 'memory' });
    expect(reopened.openReport.entries).toBe(2);
    await reopened.close();
    await again.close();
  });

  it('refuses a write to a file it does not hold, and every later commit until a restart', async () => {
    const dir = freshDir();
    const journal = openCommitJournal({ dir });
    const other = openCommitJournal({ dir: freshDir() });
    const foreign = other.file(join(other.dir, 'x.log'));
    await expect(journal.commit([{ file: foreign, text: 'x\n' }])).rejects.toThrow(/not a file of this journal/);
    expect(journal.failure()).toMatch(/commits stop/);
    const mine = journal.file(join(dir, 'mine.log'));
    await expect(journal.commit([{ file: mine, text: 'y\n' }])).rejects.toThrow(/commits stop/);
  });
});

/**
 * The durable-files primitives (src/durable/) and the recovery rules the stores rely on: group
 * commit (one flush for what waits, a failed flush rejects its batch only), appends that a torn
 * write (a crash, a full disk) cannot spoil for the records after it, atomic replacement, and the
 * stores' own reading of a torn last line. Writes are torn through the recording node:fs.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { faults } from '../../helpers/fs-recorder.ts';
import { openAppendFile } from '../../../src/durable/append-file.ts';
import { replaceFile, replaceFileSync, tempPathOf } from '../../../src/durable/atomic-replace.ts';
import { createGroupCommit } from '../../../src/durable/group-commit.ts';
import { openLineLog, readCompleteLines } from '../../../src/durable/line-log.ts';
import { createLedgerBacklog } from '../../../src/receipts/ledger-backlog.ts';
import { createDurableRecordLog } from '../../../src/x402/stores/durable-record-log.ts';
import { createReplayGuard } from '../../../src/x402/stores/replay-guard.ts';

vi.mock('node:fs', async (orig) => (await import('../../helpers/fs-recorder.ts')).recordingFs(await orig()));

let root = '';
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'durable-files-'));
  faults.tearNextWrite = null;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('group commit', () => {
  it('makes everything queued in one turn durable with one flush, in order', async () => {
    const flushed: number[][] = [];
    const commit = createGroupCommit<number>({ flush: async (batch) => void flushed.push([...batch]) });
    await Promise.all([1, 2, 3, 4].map((n) => commit.add(n)));
    expect(flushed).toEqual([[1, 2, 3, 4]]);
    expect(commit.stats()).toEqual({ items: 4, commits: 1, maxBatch: 4 });
  });

  it('queues what arrives during a flush for the next one; ungrouped, one item per flush', async () => {
    const flushed: number[][] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const commit = createGroupCommit<number>({
      flush: async (batch) => {
        flushed.push([...batch]);
        if (batch[0] === 1) await gate;
      },
    });
    const first = commit.add(1);
    await vi.waitFor(() => expect(flushed).toHaveLength(1));
    const later = [commit.add(2), commit.add(3)];
    release();
    await Promise.all([first, ...later]);
    expect(flushed).toEqual([[1], [2, 3]]);
    const serial = createGroupCommit<number>({ grouped: false, flush: async (batch) => void flushed.push([...batch]) });
    await Promise.all([4, 5].map((n) => serial.add(n)));
    expect(flushed.slice(2)).toEqual([[4], [5]]);
  });

  it('a failed flush rejects its batch only; the next batch is written', async () => {
    let failing = true;
    const commit = createGroupCommit<string>({
      flush: async () => {
        if (failing) throw new Error('EIO');
      },
    });
    const failed = [commit.add('a'), commit.add('b')].map((p) => p.then(() => 'ok').catch((e: Error) => e.message));
    expect(await Promise.all(failed)).toEqual(['EIO', 'EIO']);
    failing = false;
    await expect(commit.add('c')).resolves.toBeUndefined();
    expect(commit.stats().commits).toBe(1);
  });
});

describe('appends', () => {
  it('a torn last line found at open is cut, so the next record is read back whole', async () => {
    const path = join(root, 'x.log');
    writeFileSync(path, 'first\nsec');
    const file = openAppendFile(path);
    expect(readFileSync(path, 'utf8')).toBe('first\n');
    await file.append('third\n');
    expect(readCompleteLines(path)).toEqual(['first', 'third']);
  });

  it('after a torn append the next record starts on a line of its own; then no extra newline', async () => {
    const path = join(root, 'x.log');
    const file = openAppendFile(path);
    await file.append('first\n');
    faults.tearNextWrite = 4;
    await expect(file.append('second\n')).rejects.toThrow(/ENOSPC/);
    await file.append('third\n');
    await file.append('fourth\n');
    expect(readFileSync(path, 'utf8')).toBe('first\nseco\nthird\nfourth\n');
  });

  it('a replaced or rotated file gets the later appends (not the old file through a stale fd)', async () => {
    const path = join(root, 'x.log');
    const file = openAppendFile(path);
    await file.append('old\n');
    await file.replace('compacted\n');
    await file.append('after\n');
    expect(readCompleteLines(path)).toEqual(['compacted', 'after']);
    await file.rotate(join(root, 'x.previous'));
    await file.append('new\n');
    expect(readCompleteLines(path)).toEqual(['new']);
    expect(readCompleteLines(join(root, 'x.previous'))).toEqual(['compacted', 'after']);
  });

  it('a line log hands each batch to its flush, resolves once written, and refuses after close', async () => {
    const path = join(root, 'x.log');
    const batches: string[][] = [];
    const log = openLineLog<string>({
      path,
      startText: 'kept\n',
      flush: (lines, file) => {
        batches.push([...lines]);
        return file.append(lines.join(''));
      },
    });
    await Promise.all(['a\n', 'b\n'].map((l) => log.add(l)));
    await log.close();
    await expect(log.add('late\n')).rejects.toThrow(/is closed/);
    expect(batches).toEqual([['a\n', 'b\n']]);
    expect(readCompleteLines(path)).toEqual(['kept', 'a', 'b']);
  });
});

describe('atomic replace', () => {
  it('leaves the whole new content with its mode and no temporary file; a torn temporary file from a crash is harmless', async () => {
    const path = join(root, 'state.json');
    replaceFileSync(path, '{"v":1}\n', 0o644);
    writeFileSync(tempPathOf(path), '{"v":'); // what a crash mid-write leaves
    expect(readFileSync(path, 'utf8')).toBe('{"v":1}\n');
    await replaceFile(path, '{"v":2}\n', 0o600);
    expect(readFileSync(path, 'utf8')).toBe('{"v":2}\n');
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(readdirSync(root)).toEqual(['state.json']);
  });

  it('a torn write of the temporary file rejects and leaves the old content', async () => {
    const path = join(root, 'state.json');
    await replaceFile(path, 'old\n');
    faults.tearNextWrite = 2;
    await expect(replaceFile(path, 'new content\n')).rejects.toThrow(/ENOSPC/);
    expect(readFileSync(path, 'utf8')).toBe('old\n');
  });
});

describe('the stores after a crash left a torn last line', () => {
  it('the replay guard keeps a key settled after the torn line (it was glued onto the fragment before)', async () => {
    const dir = join(root, 'replay');
    const first = createReplayGuard({ dir, now: () => 1_000 });
    await first.markSettled('svm:one');
    await first.close();
    appendFileSync(join(dir, 'replay-keys.current'), '601000 svm:tor');
    const second = createReplayGuard({ dir, now: () => 2_000 });
    expect(second.acquire('svm:tor')).toBe('acquired');
    await second.markSettled('svm:two');
    await second.close();
    const third = createReplayGuard({ dir, now: () => 3_000 });
    expect(['svm:one', 'svm:two'].map((k) => third.acquire(k))).toEqual(['settled', 'settled']);
  });

  it('the ledger backlog keeps a record added after the torn line', async () => {
    const dir = join(root, 'backlog');
    mkdirSync(dir);
    writeFileSync(join(dir, 'ledger-backlog.log'), '{"k":1,"v":{"originalUrl":"/v1/ep');
    const config = { dir, issue: () => Promise.reject(new Error('not now')), retryMs: 60_000 };
    const backlog = createLedgerBacklog(config);
    expect(backlog.size()).toBe(0);
    await backlog.add({ originalUrl: '/v1/epoch', endpoint: '/v1/epoch', priceUsdcUnits: 1000, network: 'eip155:8453', body: '{}' });
    await backlog.close();
    const again = createLedgerBacklog(config);
    expect(again.size()).toBe(1);
    await again.close();
  });

  it('the durable record log forgets a refused record (or keeps the earlier one), and writes again once it can', async () => {
    const log = createDurableRecordLog<number>({ dir: root, file: 'x.log', maxEntries: 10, now: () => 0 });
    await log.put('kept', 1, 60_000);
    // The log's path turns into a directory: opening it for append fails.
    rmSync(join(root, 'x.log'));
    mkdirSync(join(root, 'x.log'));
    await expect(log.put('new', 2, 60_000)).rejects.toThrow();
    await expect(log.put('kept', 3, 60_000)).rejects.toThrow();
    expect(log.get('new')).toBeUndefined();
    expect(log.get('kept')).toBe(1);
    rmSync(join(root, 'x.log'), { recursive: true });
    await log.put('new', 4, 60_000);
    expect(existsSync(join(root, 'x.log'))).toBe(true);
    expect(createDurableRecordLog<number>({ dir: root, file: 'x.log', maxEntries: 10, now: () => 0 }).get('new')).toBe(4);
  });
});

/**
 * A failed append must not spoil the next one: the torn fragment it may leave stays a line of its
 * own, and a record whose write is refused is not kept in memory either (a restart would not have it).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLineAppender } from '../../src/trust/line-appender.ts';
import { createDurableRecordLog } from '../../src/x402/durable-record-log.ts';

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'appender-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A handle whose next writeFile stores only `keep` characters of its text, then fails (a full disk). */
function tearingHandle(fh: FileHandle, keep: number): FileHandle {
  return {
    datasync: () => fh.datasync(),
    writeFile: async (text: string) => {
      await fh.writeFile(text.slice(0, keep));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    },
  } as unknown as FileHandle;
}

describe('line appender', () => {
  it('writes the record after a torn append on a line of its own', async () => {
    const path = join(freshDir(), 'x.log');
    const fh = await open(path, 'a');
    const appender = createLineAppender();
    await appender.append(fh, 'first\n');
    await expect(appender.append(tearingHandle(fh, 4), 'second\n')).rejects.toThrow(/ENOSPC/);
    await appender.append(fh, 'third\n');
    await fh.close();
    expect(readFileSync(path, 'utf8').split('\n')).toEqual(['first', 'seco', 'third', '']);
  });

  it('adds nothing once a rewrite replaced the file, nor after a successful append', async () => {
    const path = join(freshDir(), 'x.log');
    const fh = await open(path, 'a');
    const appender = createLineAppender();
    await expect(appender.append(tearingHandle(fh, 0), 'lost\n')).rejects.toThrow();
    appender.rewritten();
    await appender.append(fh, 'a\n');
    await appender.append(fh, 'b\n');
    await fh.close();
    expect(readFileSync(path, 'utf8')).toBe('a\nb\n');
  });
});

describe('durable record log, when its file refuses a write', () => {
  it('forgets the refused record (or keeps the earlier one), and writes again once it can', async () => {
    const dir = freshDir();
    const log = createDurableRecordLog<number>({ dir, file: 'x.log', maxEntries: 10, now: () => 0 });
    await log.put('kept', 1, 60_000);
    // The log's path turns into a directory: opening it for append fails.
    rmSync(join(dir, 'x.log'));
    mkdirSync(join(dir, 'x.log'));
    await expect(log.put('new', 2, 60_000)).rejects.toThrow();
    await expect(log.put('kept', 3, 60_000)).rejects.toThrow();
    expect(log.get('new')).toBeUndefined();
    expect(log.get('kept')).toBe(1);
    rmSync(join(dir, 'x.log'), { recursive: true });
    await log.put('new', 4, 60_000);
    expect(createDurableRecordLog<number>({ dir, file: 'x.log', maxEntries: 10, now: () => 0 }).get('new')).toBe(4);
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InUseError } from '../../../src/errors.ts';
import { DATA_DIR_LOCK_FILE, lockDataDir, type ProcessProbe, parseHolder } from '../../../src/service/data-dir-lock.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'x402-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A probe over a made-up process table: PID -> start time. */
const probeOf = (pid: number, table: Record<number, string>): ProcessProbe => ({
  pid,
  isRunning: (p) => p in table,
  startTime: (p) => table[p] ?? null,
});
const lockPath = () => join(dir, DATA_DIR_LOCK_FILE);
const writeLock = (holder: unknown) => writeFileSync(lockPath(), `${JSON.stringify(holder)}\n`);

describe('the data directory lock', () => {
  it('names its holder, refuses a second holder with the PID, and is gone once released', () => {
    const first = lockDataDir(dir, probeOf(100, { 100: 't100', 200: 't200' }), false);
    expect(parseHolder(readFileSync(lockPath(), 'utf8'))).toMatchObject({ pid: 100, startedAt: 't100' });
    expect(() => lockDataDir(dir, probeOf(200, { 100: 't100', 200: 't200' }), false)).toThrow(new InUseError(`data directory ${dir} is in use by process 100`));
    first.release();
    expect(existsSync(lockPath())).toBe(false);
    // Nothing staged is left behind, by the holder or the refused start.
    expect(readdirSync(dir)).toEqual([]);
    lockDataDir(dir, probeOf(200, { 200: 't200' }), false).release();
  });

  it('takes over a lock whose process is gone', () => {
    writeLock({ pid: 100, startedAt: 't100', nonce: 'a' });
    const lock = lockDataDir(dir, probeOf(200, { 200: 't200' }), false);
    expect(parseHolder(readFileSync(lockPath(), 'utf8'))?.pid).toBe(200);
    lock.release();
  });

  it('takes over a lock whose PID now belongs to a later process (another start time), not one whose process still runs', () => {
    writeLock({ pid: 100, startedAt: 't-old', nonce: 'a' });
    lockDataDir(dir, probeOf(200, { 100: 't-new', 200: 't200' }), false).release();
    writeLock({ pid: 100, startedAt: 't100', nonce: 'a' });
    expect(() => lockDataDir(dir, probeOf(200, { 100: 't100', 200: 't200' }), false)).toThrow(InUseError);
  });

  it('takes over a lock naming its own PID that this process does not hold (a container restarted as PID 1)', () => {
    writeLock({ pid: 1, startedAt: null, nonce: 'previous-run' });
    lockDataDir(dir, probeOf(1, {}), false).release();
  });

  it('takes over a file that names no holder', () => {
    writeFileSync(lockPath(), 'garbage');
    lockDataDir(dir, probeOf(200, { 200: 't200' }), false).release();
  });

  it('release leaves alone a lock that no longer names it', () => {
    const lock = lockDataDir(dir, probeOf(100, { 100: 't100' }), false);
    writeLock({ pid: 300, startedAt: 't300', nonce: 'b' });
    lock.release();
    expect(parseHolder(readFileSync(lockPath(), 'utf8'))?.pid).toBe(300);
  });
});

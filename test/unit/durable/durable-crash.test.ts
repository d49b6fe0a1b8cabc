/**
 * kill -9 of a process in the middle of its durable writes, per primitive of src/durable/: a
 * child writes in a loop and reports each write once it resolved; it is SIGKILLed after a number
 * of them the test picks, while others are in flight, and the files are then opened the way the
 * stores open them. Every acknowledged write must be there, and nothing half-written may be read.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLineLog, readCompleteLines } from '../../../src/durable/line-log.ts';
import { acksUntilKilled } from '../../helpers/test-support.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'durable-crash-'));
  dirs.push(d);
  return d;
};

/** Runs the writing child until it acknowledged `target` writes, kills it with SIGKILL, and returns what it acknowledged. */
async function writeUntilKilled(args: string[], target: number): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../helpers/durable-write-child.ts'), ...args], {
    cwd: join(import.meta.dirname, '../../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return acksUntilKilled(child, target);
}

describe('kill -9 mid-write', () => {
  it('a line log (group commit) keeps every acknowledged record, and the next start appends whole lines', async () => {
    const path = join(freshDir(), 'x.log');
    const acked = await writeUntilKilled(['log', path, '16'], 200 + Math.floor(Math.random() * 200));
    const seen = new Set(readCompleteLines(path).map((line) => (JSON.parse(line) as { n: number }).n));
    for (const n of acked) expect(seen.has(n)).toBe(true);
    const log = openLineLog<string>({ path, flush: (lines, file) => file.append(lines.join('')) });
    await log.add('{"n":-1}\n');
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.at(-1)).toBe('{"n":-1}');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('an atomic replacement leaves a whole file, at least as new as the last acknowledged one', async () => {
    const path = join(freshDir(), 'state.json');
    const acked = await writeUntilKilled(['replace', path], 50 + Math.floor(Math.random() * 100));
    const { n } = JSON.parse(readFileSync(path, 'utf8')) as { n: number };
    expect(n).toBeGreaterThanOrEqual(Math.max(...acked));
  });
});

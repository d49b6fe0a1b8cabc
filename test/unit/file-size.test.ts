/**
 * House style keeps every source file of the product short enough to read in one sitting: at most
 * FILE_MAX_LINES lines in src/, workers/ and each workspace package's src/. A failure names each
 * longer file with its length; split it at a seam rather than raise the limit.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSources, repositoryRoot } from '../helpers/import-layers.ts';

/** The longest a source file may be, in lines. */
const FILE_MAX_LINES = 250;

/**
 * The files allowed past FILE_MAX_LINES, each with its own bound: one state machine that reads
 * better whole than split at a seam it does not have. Its header says why; the bound still holds it.
 */
const ALLOWED_LONGER: Readonly<Record<string, number>> = {};

/** Lines of a text as `wc -l` would count them, plus an unterminated last line. */
function lineCount(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** "path: n lines" for every file longer than `maxLines` (or its own allowance), sorted by path. */
function oversizedFiles(files: ReadonlyMap<string, string>, maxLines: number, allowed: Readonly<Record<string, number>> = {}): string[] {
  return [...files]
    .map(([path, text]) => ({ path, lines: lineCount(text) }))
    .filter((f) => f.lines > (allowed[f.path] ?? maxLines))
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((f) => `${f.path}: ${f.lines} lines`);
}

describe('file size', () => {
  it(`no .ts file of src/, workers/ or packages/*/src/ is longer than ${FILE_MAX_LINES} lines`, () => {
    const root = repositoryRoot(import.meta.url);
    const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `packages/${e.name}/src`);
    const files = readSources(root, ['src', 'workers', ...packages]);
    expect(files.size).toBeGreaterThan(150);
    expect(oversizedFiles(files, FILE_MAX_LINES, ALLOWED_LONGER)).toEqual([]);
    // An allowance names a file that exists and needs it: a stale one would hide nothing but mislead.
    for (const [path, bound] of Object.entries(ALLOWED_LONGER)) {
      expect(files.has(path), `${path} is allowed ${bound} lines but does not exist`).toBe(true);
      expect(lineCount(files.get(path)!), `${path} no longer needs its allowance`).toBeGreaterThan(FILE_MAX_LINES);
      expect(files.get(path)!, `${path} must say in its header why it is longer`).toMatch(/Longer than the house's 250 lines/);
    }
  });

  it('the check counts lines as wc -l does and names what is too long (a synthetic tree)', () => {
    const lines = (n: number): string => 'x\n'.repeat(n);
    const files = new Map([
      ['src/b.ts', lines(251)],
      ['src/a.ts', `${lines(250)}y`],
      ['src/ok.ts', lines(250)],
      ['src/empty.ts', ''],
    ]);
    expect(oversizedFiles(files, 250)).toEqual(['src/a.ts: 251 lines', 'src/b.ts: 251 lines']);
    expect(oversizedFiles(files, 250, { 'src/b.ts': 251 })).toEqual(['src/a.ts: 251 lines']);
    expect(oversizedFiles(files, 250, { 'src/b.ts': 250 })).toEqual(['src/a.ts: 251 lines', 'src/b.ts: 251 lines']);
    expect(lineCount('x')).toBe(1);
    expect(lineCount('x\ny\n')).toBe(2);
  });
});

/**
 * The test run's file order (test/helpers/slowest-first-sequencer.ts): group order first, then the
 * isolated files, then the longest first, a file's duration taken from vitest's cache, else from
 * test/file-durations.json, else the list's median.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import SlowestFirstSequencer from '../helpers/slowest-first-sequencer.ts';

const ROOT = '/repo';
const LISTED: Record<string, number> = JSON.parse(readFileSync(new URL('../file-durations.json', import.meta.url), 'utf8'));
const byLength = Object.entries(LISTED).sort((a, b) => b[1] - a[1]);
const longest = byLength[0]!;
// The next strictly shorter file: two listed files may take the same time, and then either order is right.
const second = byLength.find(([, seconds]) => seconds < longest[1])!;
const shortest = byLength.at(-1)!;

function spec(path: string, o: { project?: string; isolate?: boolean; groupOrder?: number } = {}): TestSpecification {
  const config = { isolate: o.isolate ?? false, sequence: { groupOrder: o.groupOrder ?? 0 } };
  return { moduleId: join(ROOT, path), project: { name: o.project ?? 'shared', config } } as unknown as TestSpecification;
}

function sequencer(cached: Record<string, number> = {}): SlowestFirstSequencer {
  const cache = { getFileTestResults: (key: string) => (key in cached ? { duration: cached[key]! * 1000, failed: false } : undefined) };
  return new SlowestFirstSequencer({ config: { root: ROOT }, cache } as unknown as Vitest);
}

const paths = (specs: TestSpecification[]) => specs.map((s) => s.moduleId.slice(ROOT.length + 1));

describe('the file order', () => {
  it('the listed files longest first, whatever order they came in', async () => {
    const sorted = await sequencer().sort([spec(shortest[0]), spec(second[0]), spec(longest[0])]);
    expect(paths(sorted)).toEqual([longest[0], second[0], shortest[0]]);
  });

  it("vitest's cached duration wins over the list", async () => {
    const sorted = await sequencer({ [`shared:${shortest[0]}`]: longest[1] + 1 }).sort([spec(longest[0]), spec(shortest[0])]);
    expect(paths(sorted)).toEqual([shortest[0], longest[0]]);
  });

  it('a file on no list counts as the median: after the longest, before the shortest', async () => {
    const sorted = await sequencer().sort([spec(shortest[0]), spec('test/unit/not-listed.test.ts'), spec(longest[0])]);
    expect(paths(sorted)).toEqual([longest[0], 'test/unit/not-listed.test.ts', shortest[0]]);
  });

  it('group order first, then the isolated files, then the length', async () => {
    const later = spec(longest[0], { groupOrder: 1 });
    const isolated = spec(shortest[0], { project: 'parallel', isolate: true });
    const sorted = await sequencer().sort([later, spec(second[0]), isolated]);
    expect(sorted).toEqual([isolated, sorted[1], later]);
    expect(paths(sorted)[1]).toBe(second[0]);
  });
});

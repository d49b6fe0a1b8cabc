/**
 * The profile summary reads the run's own main-thread profile: a `--profile DIR` used before still
 * holds the earlier run's profiles, and the summary refused to choose (found by the lean402 pass).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { summarizeProfileDir } from '../../../bench/harness/profile-summary.ts';

/** A profile whose one busy function is `fn`, sampled for `ms`. */
const profile = (fn: string, ms: number) =>
  JSON.stringify({
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2] },
      { id: 2, callFrame: { functionName: fn, url: '', lineNumber: 0 } },
    ],
    samples: [2],
    timeDeltas: [ms * 1000],
  });

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('summarizeProfileDir', () => {
  it("takes the newest main-thread profile when an earlier run's are still there", () => {
    dir = mkdtempSync(join(tmpdir(), 'profiles-'));
    writeFileSync(join(dir, 'CPU.20261129.235959.111.0.001.cpuprofile'), profile('earlier', 5));
    writeFileSync(join(dir, 'CPU.20261130.000001.222.0.001.cpuprofile'), profile('latest', 7));
    // A worker thread's profile of the latest run is not the main thread's.
    writeFileSync(join(dir, 'CPU.20261130.000002.222.3.002.cpuprofile'), profile('worker', 9));
    const summary = summarizeProfileDir(dir, 5);
    expect(summary.file).toBe('CPU.20261130.000001.222.0.001.cpuprofile');
    expect(summary.entries.map((e) => e.fn)).toEqual(['latest']);
  });

  it('says so when the directory holds no main-thread profile', () => {
    dir = mkdtempSync(join(tmpdir(), 'profiles-'));
    expect(() => summarizeProfileDir(dir, 5)).toThrow(/no main-thread profile/);
  });
});

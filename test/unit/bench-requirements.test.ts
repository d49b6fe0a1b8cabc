/**
 * scripts/bench-requirements.sh, what `npm run bench` runs first: with wrk there it says so; with
 * wrk missing it installs the Debian package with apt-get when it can (a stand-in apt-get records
 * the call here), and when it cannot it names the package and exits 0 (the benchmarks still run,
 * on the Node load generator, and say so).
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../helpers/import-layers.ts';

const SCRIPT = join(repositoryRoot(import.meta.url), 'scripts', 'bench-requirements.sh');
const dir = mkdtempSync(join(tmpdir(), 'bench-requirements-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [SCRIPT], { env: { ...process.env, ...env } }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }));
  });
}

/** An executable at `name` in the test's directory that records its arguments. */
function recording(name: string): { path: string; calls: () => string[] } {
  const path = join(dir, name);
  const log = join(dir, `${name}.log`);
  writeFileSync(log, '');
  writeFileSync(path, `#!/bin/sh\necho "$*" >> ${log}\n`);
  chmodSync(path, 0o755);
  return { path, calls: () => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) };
}

// Whether this machine runs the script as root (or with sudo that asks nothing) decides which branch a missing wrk takes.
const root = process.getuid?.() === 0;

describe('the bench requirements', () => {
  it('wrk present: one line, exit 0, nothing installed', async () => {
    const apt = recording('apt-get');
    const result = await run({ WRK: recording('wrk').path, APT_GET: apt.path });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.trim()).toBe('bench requirements: wrk is here');
    expect(result.stdout).toBe('');
    expect(apt.calls()).toEqual([]);
  });

  it.runIf(root)('wrk missing, apt-get at hand: installs the wrk package', async () => {
    const apt = recording('apt-get');
    const result = await run({ WRK: join(dir, 'no-wrk'), APT_GET: apt.path });
    expect(result.code, result.stderr).toBe(0);
    expect(apt.calls()).toEqual(['update -qq', 'install -y -qq wrk']);
  });

  it('wrk missing and no apt-get: names the package, exit 0 (the benchmarks run on the Node generator)', async () => {
    const result = await run({ WRK: join(dir, 'no-wrk'), APT_GET: join(dir, 'no-apt-get') });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('sudo apt-get install -y wrk');
  });
});

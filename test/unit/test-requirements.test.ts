/**
 * scripts/test-requirements.sh, what `npm test` and .ci/run run first: with everything there it
 * says so and exits 0; with Chromium missing it installs the Debian package with apt-get when it can
 * (a stand-in apt-get records the call here), and when it cannot it names exactly what to install
 * and exits 1.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../helpers/import-layers.ts';

const SCRIPT = join(repositoryRoot(import.meta.url), 'scripts', 'test-requirements.sh');
const dir = mkdtempSync(join(tmpdir(), 'test-requirements-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the script; PostgreSQL is taken as given (a URL), so only what a test changes can be missing. */
function run(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [SCRIPT], { env: { ...process.env, TEST_DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db', ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    );
  });
}

/** An apt-get that records its arguments instead of installing. */
function recordingAptGet(): { path: string; calls: () => string[] } {
  const path = join(dir, 'apt-get');
  const log = join(dir, 'apt-get.log');
  writeFileSync(log, '');
  writeFileSync(path, `#!/bin/sh\necho "$*" >> ${log}\n`);
  chmodSync(path, 0o755);
  return { path, calls: () => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) };
}

// Whether this machine runs the script as root (or with sudo that asks nothing) decides which branch a missing package takes.
const root = process.getuid?.() === 0;

describe('the test requirements', () => {
  it('all present: one line, exit 0', async () => {
    const result = await run({});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('test requirements: Chromium, Go with the sumdb packages and PostgreSQL (TEST_DATABASE_URL) are here');
  });

  it.runIf(root)('Chromium missing, apt-get at hand: installs the chromium package', async () => {
    const apt = recordingAptGet();
    const result = await run({ CHROMIUM: join(dir, 'no-chromium'), APT_GET: apt.path });
    expect(result.code, result.stderr).toBe(0);
    expect(apt.calls()).toEqual(['update -qq', 'install -y -qq chromium']);
  });

  it('Go sumdb packages missing and no apt-get: names the packages to install, exit 1', async () => {
    const result = await run({ GOCODE: join(dir, 'no-gocode'), APT_GET: join(dir, 'no-apt-get') });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('sudo apt-get install -y golang-go golang-golang-x-mod-dev');
  });
});

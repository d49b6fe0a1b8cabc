/**
 * `npm start` as a newcomer meets it (scripts/start.mjs), in a checkout with no build: `--help`
 * prints the options and builds nothing; a start on a busy port says so and exits 2 before it
 * builds or writes anything. And the build stamp it decides by: current after a build, stale once
 * an input changes or goes.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBuildFresh, writeBuildStamp } from '../../scripts/build-stamp.mjs';
import { repositoryRoot } from '../helpers/import-layers.ts';

const ROOT = repositoryRoot(import.meta.url);
let checkout: string;
let busy: Server;

beforeAll(async () => {
  // A checkout without dist/: the launcher and its stamp reader copied, the sources and packages linked.
  checkout = mkdtempSync(join(tmpdir(), 'start-launcher-'));
  mkdirSync(join(checkout, 'scripts'));
  for (const f of ['start.mjs', 'build-stamp.mjs']) copyFileSync(join(ROOT, 'scripts', f), join(checkout, 'scripts', f));
  for (const d of ['src', 'node_modules', 'web', 'workers', 'packages']) symlinkSync(join(ROOT, d), join(checkout, d));
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => busy.close(() => resolve()));
  rmSync(checkout, { recursive: true, force: true });
});

function start(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(checkout, 'scripts', 'start.mjs'), ...args], { cwd: checkout, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    );
  });
}

describe('npm start without a build', () => {
  it('--help prints every option and builds nothing', async () => {
    const run = await start(['--help']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Usage: npm start -- [options]');
    expect(run.stdout).toContain('--fresh');
    expect(run.stdout).not.toContain('building');
    expect(existsSync(join(checkout, 'dist'))).toBe(false);
  });

  it('on a busy port exits 2 naming it, before building or writing anything', async () => {
    const port = (busy.address() as { port: number }).port;
    const run = await start(['--port', String(port), '--admin-port', '0', '--data-dir', join(checkout, 'data')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`port ${port} is in use`);
    expect(existsSync(join(checkout, 'dist'))).toBe(false);
    expect(existsSync(join(checkout, 'data'))).toBe(false);
  });
});

describe('the build stamp', () => {
  it('is current while every input is as it was, and stale once one changes or goes', () => {
    const dir = join(checkout, 'stamped');
    mkdirSync(join(dir, 'out'), { recursive: true });
    writeFileSync(join(dir, 'a.ts'), 'one');
    writeFileSync(join(dir, 'b.ts'), 'two');
    expect(isBuildFresh(join(dir, 'out'), dir)).toBe(false);
    writeBuildStamp(join(dir, 'out'), dir, ['a.ts', 'b.ts']);
    expect(isBuildFresh(join(dir, 'out'), dir)).toBe(true);
    writeFileSync(join(dir, 'b.ts'), 'two!');
    expect(isBuildFresh(join(dir, 'out'), dir)).toBe(false);
    writeBuildStamp(join(dir, 'out'), dir, ['a.ts', 'b.ts']);
    unlinkSync(join(dir, 'a.ts'));
    expect(isBuildFresh(join(dir, 'out'), dir)).toBe(false);
  });

  it("vitest's own build of this tree is current", () => {
    expect(isBuildFresh(join(ROOT, 'dist', 'server'), ROOT)).toBe(true);
    expect(isBuildFresh(join(ROOT, 'dist', 'web'), ROOT)).toBe(true);
  });
});

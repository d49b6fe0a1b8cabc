/**
 * A second start beside a running service (docs/security.md#sockets-the-pool-proxies-and-processes),
 * as a user makes it: the built server, twice. Before the fixes both listened on one port (uWS
 * shares ports by default and the kernel split the traffic) and both wrote one data directory.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK_FILE } from '../../src/service/data-dir-lock.ts';
import { killService, SERVICE_START_TIMEOUT_MS, type ServiceProcess, spawnService } from '../helpers/service-process.ts';

/** A port free now. The first service gets a fixed port as a user's does: a port bound as 0 is never shared. */
const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

let root: string;
let first: ServiceProcess;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'x402-second-start-'));
  first = await spawnService(join(root, 'first'), ['--port', String(await freePort()), '--admin-port', String(await freePort())], 'built');
}, SERVICE_START_TIMEOUT_MS);
afterAll(async () => {
  await killService(first);
  rmSync(root, { recursive: true, force: true });
});

/** Starts the built server with `args` and waits for its exit: it must not get as far as listening. */
async function secondStart(dataDir: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const started = spawnService(dataDir, args, 'built');
  const outcome = await started.then(
    async (p) => {
      await killService(p);
      return { code: -1, stderr: 'the second start listened' };
    },
    (err: Error) => ({ code: Number(/exited before listening \(code (\d+)/.exec(err.message)?.[1] ?? NaN), stderr: err.message }),
  );
  return outcome;
}

describe('a second start', () => {
  // The admin listener binds through the same listen: its port is held exclusively too.
  it(
    'on the same port exits 2 with "port N is in use" before it builds or writes anything, and the first keeps serving',
    async () => {
      const port = new URL(first.url).port;
      const second = await secondStart(join(root, 'second'), ['--port', port]);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`port ${port} is in use`);
      // Checked first: no data directory (no identity, no lock), no localnet started.
      expect(existsSync(join(root, 'second'))).toBe(false);
      expect(second.stderr).not.toMatch(/^localnet /m);
      expect((await fetch(`${first.url}/health`)).status).toBe(200);
    },
    SERVICE_START_TIMEOUT_MS,
  );

  it(
    'on the admin port of the first exits 2 the same way, writing nothing',
    async () => {
      const adminPort = new URL(first.adminUrl).port;
      const second = await secondStart(join(root, 'second-admin'), ['--port', String(await freePort()), '--admin-port', adminPort]);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`port ${adminPort} is in use`);
      expect(existsSync(join(root, 'second-admin'))).toBe(false);
    },
    SERVICE_START_TIMEOUT_MS,
  );

  it(
    'on the same data directory exits 2 naming the process that holds it, and the first keeps serving',
    async () => {
      const second = await secondStart(join(root, 'first'), []);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`data directory ${join(root, 'first')} is in use by process ${first.pid}`);
      expect((await fetch(`${first.url}/health`)).status).toBe(200);
    },
    SERVICE_START_TIMEOUT_MS,
  );
});

/**
 * A process that takes the lock of `dir` once told to (all at once: `go`), and holds it until its
 * stdin closes; `ready` resolves once it waits, `said` with what it printed after trying.
 */
function lockTaker(dir: string) {
  const lockModule = new URL('../../src/service/data-dir-lock.ts', import.meta.url).href;
  const script = `import { lockDataDir } from '${lockModule}';
process.stdin.once('data', () => {
  try { lockDataDir(process.argv[1]); console.log('held'); } catch (err) { console.log(err.message); }
});
process.stdin.on('end', () => process.exit(0));
console.log('ready');`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    for (const line of d.trim().split('\n')) {
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const next = () => (lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise<string>((r) => waiting.push(r)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    ready: next(),
    go: () => {
      child.stdin!.write('go\n');
      return next();
    },
    release: (): Promise<void> => {
      child.stdin!.end();
      return exited;
    },
  };
}

describe('starts racing for a stale lock', () => {
  it('exactly one of six holds it, the others are refused naming it', async () => {
    const dir = join(root, 'raced');
    mkdirSync(dir);
    // Left by a process that is gone: Linux never hands out a PID above 2^22.
    writeFileSync(join(dir, DATA_DIR_LOCK_FILE), `${JSON.stringify({ pid: 2 ** 22 + 1, startedAt: null, nonce: 'crashed' })}\n`);
    const takers = Array.from({ length: 6 }, () => lockTaker(dir));
    await Promise.all(takers.map((t) => t.ready));
    const said = await Promise.all(takers.map((t) => t.go()));
    await Promise.all(takers.map((t) => t.release()));
    expect(said.filter((s) => s === 'held')).toHaveLength(1);
    for (const s of said.filter((s) => s !== 'held')) expect(s).toMatch(/^data directory .* is (in use by process \d+|being locked by other starts)/);
  }, 60_000);
});

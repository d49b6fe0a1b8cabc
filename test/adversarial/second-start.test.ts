/**
 * A second start beside a running service (docs/security.md#sockets-the-pool-proxies-and-processes),
 * as a user makes it: the built server, twice. Before the fixes both listened on one port (uWS
 * shares ports by default and the kernel split the traffic) and both wrote one data directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    'on the same port exits 2 with "port N is in use", and the first keeps serving',
    async () => {
      const port = new URL(first.url).port;
      const second = await secondStart(join(root, 'second'), ['--port', port]);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`port ${port} is in use`);
      expect((await fetch(`${first.url}/health`)).status).toBe(200);
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

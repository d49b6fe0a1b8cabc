/**
 * SIGINT/SIGTERM finish whatever the upstreams do, with the ledger closed cleanly, and a second
 * signal exits at once. The service runs in mainnet mode against a localnet in its own process,
 * so the test can freeze the upstreams (SIGSTOP) as a hung RPC/Geyser provider would be.
 * Before the fix: frozen 8 s, SIGINT, thawed 2 s later, and the service was still "draining"
 * minutes later (the Geyser stream opened after the close never saw it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLedger } from '../../src/ledger/ledger.ts';
import { killService, SERVICE_START_TIMEOUT_MS, spawnService, type ServiceProcess } from '../helpers/service-process.ts';
import { worldSnapshots } from '../helpers/world-snapshots.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface LocalnetProcess {
  readonly child: ChildProcess;
  readonly lines: Record<'rpc' | 'geyser' | 'market' | 'stablecoin' | 'usdc', string>;
}

/**
 * `npm run localnet` as its own process on free ports; resolves with the URLs it prints. No
 * background traffic (localnet-traffic.ts): the services here read slots, and pay for nothing. Its
 * seed's world (the default, localnet-1, in the test helpers' shape) is played back from the run's
 * snapshots (world-snapshots.ts), not built.
 */
function spawnLocalnet(): Promise<LocalnetProcess> {
  const ports = ['--rpc-port', '0', '--geyser-port', '0', '--market-port', '0', '--evm-port', '0'];
  const { worldSnapshotDir } = worldSnapshots();
  const world = ['--slots-per-epoch', '64', ...(worldSnapshotDir ? ['--world-dir', worldSnapshotDir] : [])];
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/localnet/src/cli.ts', ...ports, '--txs-per-slot', '0', ...world], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`localnet exited (${code}): ${out}`)));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const get = (re: RegExp) => re.exec(out)?.[1];
      const [rpc, geyser, market, stablecoin, usdc] = [
        /^localnet rpc (\S+)/m,
        /^localnet geyser (\S+)/m,
        /^localnet market (\S+)/m,
        /^localnet stablecoin (\S+)/m,
        /LocalUsdc (0x[0-9a-fA-F]{40})/,
      ].map(get);
      if (rpc && geyser && market && stablecoin && usdc) resolve({ child, lines: { rpc, geyser, market, stablecoin, usdc } });
    });
  });
}

let localnet: LocalnetProcess;
let facilitator: Server;
let facilitatorUrl = '';
const dirs: string[] = [];

beforeAll(async () => {
  localnet = await spawnLocalnet();
  // Start-up reads the facilitator's /supported; nothing here settles on Base.
  facilitator = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }], signers: { 'eip155:8453': [] } }));
  });
  await new Promise<void>((r) => facilitator.listen(0, '127.0.0.1', r));
  facilitatorUrl = `http://127.0.0.1:${(facilitator.address() as { port: number }).port}`;
}, SERVICE_START_TIMEOUT_MS);

afterAll(() => {
  localnet.child.kill('SIGCONT');
  localnet.child.kill('SIGKILL');
  facilitator.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function startMainnetService(extraArgs: readonly string[] = []): Promise<{ service: ServiceProcess; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'shutdown-'));
  dirs.push(dataDir);
  const { rpc, geyser, market, stablecoin, usdc } = localnet.lines;
  const service = await spawnService(dataDir, [
    ...['--rpc-url', rpc, '--geyser-url', geyser, '--facilitator-url', facilitatorUrl, '--svm-asset', stablecoin, '--evm-asset', usdc],
    ...['--svm-pay-to', 'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe', '--evm-pay-to', '0x1111111111111111111111111111111111111111'],
    ...['--jupiter-url', market, '--geckoterminal-url', market, '--magiceden-url', market, '--lending-url', market],
    ...extraArgs,
  ]);
  return { service, dataDir };
}

const geyserState = async (url: string): Promise<string> =>
  ((await (await fetch(`${url}/health`)).json()) as { timing: { geyser: { state: string } } }).timing.geyser.state;

describe('shutdown deadline', () => {
  it('SIGINT while the upstreams are frozen finishes, the upstreams thawing afterwards or not', async () => {
    // A frozen stream is judged stale after 1.5 s of silence (default 5 s): the wait below is for that.
    const { service, dataDir } = await startMainnetService(['--geyser-stale-ms', '1500']);
    try {
      await vi.waitUntil(async () => (await geyserState(service.url)) === 'live', { timeout: 60_000, interval: 200 });
      localnet.child.kill('SIGSTOP');
      // Frozen long enough for the stream to be judged stale and a reconnect to be under way.
      await vi.waitUntil(async () => (await geyserState(service.url)) !== 'live', { timeout: 60_000, interval: 200 });
      service.child.kill('SIGINT');
      await vi.waitUntil(() => service.stdout().includes('draining'), { timeout: 10_000, interval: 50 });
      localnet.child.kill('SIGCONT');
      const { code } = await service.exited;
      expect(code).toBe(0);
      expect(service.stdout()).toContain('stopped');
      // The ledger was closed cleanly: it reopens with nothing cut off.
      const ledger = await createLedger({ dir: join(dataDir, 'ledger') });
      expect(ledger.openReport.tornTail).toBeNull();
      await ledger.close();
    } finally {
      localnet.child.kill('SIGCONT');
      await killService(service);
    }
  }, 180_000);

  it('a second signal exits at once while a request is still draining', async () => {
    const { service } = await startMainnetService();
    try {
      // A request whose body never finishes keeps the drain waiting (up to its deadline).
      const port = Number(new URL(service.url).port);
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write('POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"');
      await vi.waitUntil(async () => ((await (await fetch(`${service.url}/health`)).json()) as { requests: { total: number } }).requests.total > 0, {
        timeout: 10_000,
        interval: 50,
      });
      service.child.kill('SIGINT');
      await vi.waitUntil(() => service.stdout().includes('draining'), { timeout: 10_000, interval: 50 });
      service.child.kill('SIGINT');
      const { code } = await service.exited;
      expect(code).toBe(1);
      expect(service.stderr()).toContain('SIGINT again: exiting at once');
      socket.destroy();
    } finally {
      await killService(service);
    }
  }, 180_000);
});

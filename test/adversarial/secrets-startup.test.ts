/**
 * A start-up that fails on an upstream prints why without the upstream's secrets: the built
 * service in mainnet mode, its Base RPC answering 500 while the service reads the token's
 * EIP-712 domain (viem's error names the request URL), its facilitator unreachable, or its
 * database refusing the connection, each URL carrying a marker (a path segment, an `api-key`
 * query, a password). The process exits non-zero, says what failed, and prints no marker.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Localnet } from '@solana-x402-intel/localnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { spawnService } from '../helpers/service-process.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

const MARKER = 'mArKeR4sTaRtUp';
let localnet: Localnet;
let evm: FaultProxy;
let closedPort = 0;
const dirs: string[] = [];

beforeAll(async () => {
  ({ localnet } = await startTestLocalnet());
  evm = await startFaultProxy(localnet.urls.evm);
  evm.mode = 'fail';
  // A port that was just free: nothing listens there, so a connection is refused at once.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
}, 120_000);

afterAll(async () => {
  await evm?.close();
  await localnet?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Mainnet options against the localnet, with `extra` replacing the Base settlement path or adding a database. */
function mainnetArgs(dataDir: string, extra: readonly string[]): string[] {
  const relayerKey = join(dataDir, 'relayer.key');
  writeFileSync(relayerKey, localnet.evm.relayerKey, { mode: 0o600 });
  const market = localnet.urls.market;
  const base = extra.includes('--facilitator-url') ? ['--channels', 'false'] : ['--evm-rpc-url', localnet.urls.evm, '--evm-relayer-key', relayerKey];
  return [
    ...['--rpc-url', localnet.urls.rpc, '--geyser-url', localnet.urls.geyser, '--svm-asset', localnet.stablecoinMint, '--evm-asset', localnet.evm.usdcAddress],
    ...['--svm-pay-to', 'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe', '--evm-pay-to', '0x1111111111111111111111111111111111111111'],
    ...['--jupiter-url', market, '--geckoterminal-url', market, '--magiceden-url', market, '--lending-url', market],
    ...base,
    ...extra,
  ];
}

/** Starts the built service, expecting it to fail; resolves with everything it printed. */
async function failedStart(extra: readonly string[]): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'secrets-startup-'));
  dirs.push(dataDir);
  const started = await spawnService(dataDir, mainnetArgs(dataDir, extra), 'built').then(
    () => null,
    (err: Error) => err.message,
  );
  expect(started, 'the service started against a failing upstream').not.toBeNull();
  return started!;
}

const CASES = [
  {
    upstream: 'Base RPC answering 500',
    extra: () => ['--evm-rpc-url', `${evm.url}/v2/${MARKER}?api-key=${MARKER}`],
    says: /fatal: HTTP request failed\. Status: 500 URL: http:\/\/127\.0\.0\.1:\d+ /,
  },
  {
    upstream: 'facilitator unreachable',
    extra: () => ['--facilitator-url', `http://127.0.0.1:${closedPort}/${MARKER}?api-key=${MARKER}`],
    says: /--facilitator-url: GET http:\/\/127\.0\.0\.1:\d+ \(/,
  },
  {
    upstream: 'database refusing the connection',
    extra: () => ['--database-url', `postgres://x402:${MARKER}@127.0.0.1:${closedPort}/${MARKER}db`],
    says: /fatal: .*ECONNREFUSED/,
  },
];

describe('a start-up that fails on an upstream', () => {
  it.each(CASES)(
    '$upstream: exits non-zero, says why, prints no secret',
    async ({ extra, says }) => {
      const printed = await failedStart(extra());
      expect(printed.toLowerCase()).not.toContain(MARKER.toLowerCase());
      expect(printed).toMatch(/service exited before listening \(code [12]/);
      // It still says what failed and where: the upstream by scheme and host.
      expect(printed).toMatch(says);
    },
    120_000,
  );
});

/**
 * Starts the real service on port 0 with a fresh data dir, the way main.ts does, for integration
 * tests that talk to it over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testServiceConfig } from './test-support.ts';
import { type Localnet, localnetUpstreams, startLocalnet } from '@solana-x402-intel/localnet';
import { startService, type RunningService, type ServiceOptions, type Upstreams } from '../../src/service/service.ts';
import type { TestLocalnetShape } from './localnet-traffic.ts';
import { COMMON_TEST_SEED, worldSnapshots } from './world-snapshots.ts';

export interface TestService {
  readonly service: RunningService;
  /** The embedded localnet the service talks to (null with `localnet: false`). */
  readonly localnet: Localnet | null;
  readonly url: string;
  readonly dataDir: string;
  close(): Promise<void>;
}

/** Starts the embedded localnet on ephemeral loopback ports, as main.ts does in embedded mode; no background traffic unless `shape` asks (localnet-traffic.ts). */
export async function startTestLocalnet(seed = COMMON_TEST_SEED, shape: TestLocalnetShape = {}): Promise<{ localnet: Localnet; upstreams: Upstreams }> {
  const slotsPerEpoch = shape.slotsPerEpoch ?? 64;
  const launches = shape.launchEverySlots === undefined ? {} : { launchEverySlots: shape.launchEverySlots };
  const localnet = await startLocalnet({
    host: '127.0.0.1',
    rpcPort: 0,
    geyserPort: 0,
    marketPort: 0,
    slotMs: 400,
    slotsPerEpoch,
    seed,
    ...worldSnapshots(),
    txsPerSlot: shape.txsPerSlot ?? 0,
    ...launches,
  });
  return { localnet, upstreams: localnetUpstreams(localnet) };
}

/** The real service on port 0 against a fresh embedded localnet (of `shape`) and data dir. */
export async function startTestService(
  options: Partial<ServiceOptions> = {},
  argv: readonly string[] = [],
  shape: TestLocalnetShape = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-intel-'));
  // The per-client limit is off unless a test sets it (test/integration/rate-limit.test.ts does).
  const config = testServiceConfig(dataDir, argv);
  const { localnet, upstreams } = await startTestLocalnet(undefined, shape);
  const service = await startService(config, { upstreams, ...options });
  return {
    service,
    localnet,
    url: service.url,
    dataDir,
    async close() {
      await service.close();
      await localnet.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The set-up every early-answer attack file shares: a localnet with light traffic (its paid call,
 * /v1/tipfloor, needs a Jito tip seen), the held-send RPC in front of it (held-send-rpc.ts), the
 * service in process over that RPC with the file's own early-answer flags, its timing windows warm,
 * and a sink the attackers drain to. `close()` undoes it all.
 */
import type { Localnet } from '@solana-x402-intel/localnet';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningService, startService } from '../../src/service/service.ts';
import type { Chain } from './early-attack.ts';
import { type HeldSendRpc, startHeldSendRpc } from './held-send-rpc.ts';
import { LIGHT_TRAFFIC } from './localnet-traffic.ts';
import { readJson } from './read-json.ts';
import { fundedPayer, type TestPayer } from './svm-payer.ts';
import { startTestLocalnet } from './test-service.ts';
import { testServiceConfig } from './test-support.ts';
import { waitForTimingWindows } from './timing-warm.ts';
import { COMMON_TEST_SEED } from './world-snapshots.ts';

export interface EarlyService {
  readonly localnet: Localnet;
  readonly rpc: HeldSendRpc;
  readonly service: RunningService;
  readonly sink: TestPayer;
  readonly chain: Chain;
  /** The paid route every attack calls. */
  readonly url: string;
  /** /health's `earlyAnswers`. */
  health(): Promise<any>;
  close(): Promise<void>;
}

/**
 * Starts it, its data dir named after `label`, the service given `flags` beyond its test defaults.
 * The localnet plays back the run's kept world (COMMON_TEST_SEED): the attacks use payers of their own.
 */
export async function startEarlyService(label: string, flags: readonly string[]): Promise<EarlyService> {
  const { localnet, upstreams } = await startTestLocalnet(COMMON_TEST_SEED, LIGHT_TRAFFIC);
  const rpc = await startHeldSendRpc(localnet.urls.rpc);
  const dataDir = mkdtempSync(join(tmpdir(), `${label}-`));
  const service = await startService(testServiceConfig(dataDir, flags), { upstreams: { ...upstreams, rpcUrl: rpc.url } });
  await waitForTimingWindows(service.url);
  const sink = await fundedPayer(localnet.urls.rpc, 1);
  return {
    localnet,
    rpc,
    service,
    sink,
    chain: { rpcUrl: localnet.urls.rpc, stablecoinMint: localnet.stablecoinMint },
    url: `${service.url}/v1/tipfloor`,
    health: async () => (await readJson(fetch(`${service.url}/health`))).earlyAnswers,
    async close() {
      await service.close();
      await rpc.close();
      await localnet.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

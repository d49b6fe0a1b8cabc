/**
 * Starts the real service on port 0 with a fresh data dir, the way main.ts does, for integration
 * tests that talk to it over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService, type ServiceOptions, type Upstreams } from '../../src/service.ts';

export interface TestService {
  readonly service: RunningService;
  readonly url: string;
  readonly dataDir: string;
  close(): Promise<void>;
}

/** Upstreams for tests that never reach the chain (validation, challenges, discovery). */
export const UNREACHED_UPSTREAMS: Upstreams = {
  rpcUrl: 'http://127.0.0.1:9',
  geyserUrl: 'http://127.0.0.1:9',
  svmAsset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
};

export async function startTestService(options: Partial<ServiceOptions> = {}, argv: readonly string[] = []): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-intel-'));
  const config = loadConfig({}, ['--port', '0', '--data-dir', dataDir, ...argv]);
  const service = await startService(config, { upstreams: UNREACHED_UPSTREAMS, ...options });
  return {
    service,
    url: service.url,
    dataDir,
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Two service instances on one PostgreSQL database and one localnet, serving payment channels as
 * one deployment does (the same identity, receiver and receiver authorizer); claims are left to
 * the test (threshold and age out of reach), and the free limit is off.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { type RunningService, startService } from '../../src/service/service.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';
import { startTestLocalnet, type TestService } from './test-service.ts';
import { testServiceConfig } from './test-support.ts';

export interface ChannelInstances {
  readonly db: TestDatabase;
  readonly localnet: NonNullable<TestService['localnet']>;
  readonly services: readonly RunningService[];
  close(): Promise<void>;
}

/** Starts the database, the localnet and two instances; `label` names the database and the temp dir. */
export async function startChannelInstances(label: string): Promise<ChannelInstances> {
  const db = await createTestDatabase(label);
  const root = mkdtempSync(join(tmpdir(), `${label}-`));
  const started = await startTestLocalnet(label);
  const authorizer = join(root, 'authorizer.key');
  writeFileSync(authorizer, generateEvmKey(), { mode: 0o600 });
  const shared = ['--database-url', db.url, '--keypair', join(root, 'identity.json'), '--evm-pay-to', evmAddressOfKey(generateEvmKey())];
  const channels = ['--channel-authorizer-key', authorizer, '--channel-claim-threshold', '999999999', '--channel-claim-age', '999999'];
  const services: RunningService[] = [];
  for (let i = 0; i < 2; i++) {
    services.push(await startService(testServiceConfig(join(root, `instance-${i}`), [...shared, ...channels]), { upstreams: started.upstreams }));
  }
  return {
    db,
    localnet: started.localnet,
    services,
    async close() {
      for (const s of services) await s.close();
      await started.localnet.close();
      await db.drop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

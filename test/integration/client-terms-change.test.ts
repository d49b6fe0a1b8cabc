/**
 * The client library when the terms change under it: a client that learned a route's terms and
 * pays through a Base channel keeps its base URL while the service behind it restarts with a
 * rotated channel authorizer key (another `receiverAuthorizer`, so another channel). Its next call
 * is paid with the old terms, gets the 402, learns the new terms from it and is paid once more
 * (one deposit into the new channel); the call after that is one round trip again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Localnet } from '@solana-x402-intel/localnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createIntelClient } from '../../src/client/index.ts';
import { loadConfig } from '../../src/config.ts';
import { type RunningService, startService, type Upstreams } from '../../src/service/service.ts';
import { startSwitchRelay, type SwitchRelay } from '../helpers/switch-relay.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

/** A paid test's limit: the shared machine runs at many times its cores at times (calls then take seconds). */
const PAID_TEST_MS = 240_000;

let localnet: Localnet;
let upstreams: Upstreams;
let dataDir: string;
let service: RunningService | null = null;
let relay: SwitchRelay;

const start = (extra: readonly string[] = []): Promise<RunningService> =>
  startService(loadConfig({}, ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--free-rate-per-second', '0', ...extra]), { upstreams });
const portOf = (s: RunningService): number => Number(new URL(s.url).port);

beforeAll(async () => {
  ({ localnet, upstreams } = await startTestLocalnet());
  dataDir = mkdtempSync(join(tmpdir(), 'client-terms-'));
  service = await start();
  relay = await startSwitchRelay(portOf(service));
}, 120_000);
afterAll(async () => {
  await relay?.close();
  await service?.close();
  await localnet?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('terms that change', () => {
  it(
    '402, learn, pay once more: a rotated channel authorizer key opens a new channel, then one round trip per call again',
    async () => {
      const key = generateEvmKey();
      await localnet.evm.fundUsdc(evmAddressOfKey(key), 1_000_000n);
      const client = createIntelClient({ url: relay.url, evmKey: key, anyAsset: true, prefer: 'base-channel' });
      try {
        const first = await client.call('/v1/epoch');
        const second = await client.call('/v1/epoch');
        expect([first.ok && first.roundTrips, second.ok && second.roundTrips]).toEqual([1, 1]);
        const oldAuthorizer = first.payment!.terms.extra.receiverAuthorizer;

        await service!.close();
        service = null;
        const rotated = join(dataDir, 'rotated-authorizer.key');
        writeFileSync(rotated, `${generateEvmKey()}\n`, { mode: 0o600 });
        service = await start(['--channel-authorizer-key', rotated]);
        relay.switchTo(portOf(service));

        const changed = await client.call('/v1/epoch');
        if (!changed.ok) throw new Error(`${changed.status} ${changed.reason}: ${changed.message}`);
        expect(changed.roundTrips).toBe(2);
        expect(changed.payment!.terms.extra.receiverAuthorizer).not.toBe(oldAuthorizer);
        expect(changed.payment!.depositUnits).toBe(100_000n);
        expect(changed.paymentResponse!.transaction).toMatch(/^0x[0-9a-f]{64}$/);

        const after = await client.call('/v1/epoch');
        expect(after.ok && after.roundTrips).toBe(1);
        expect(after.ok && after.payment!.depositUnits).toBe(0n);
        expect(client.totals()).toMatchObject({ chargedUnits: 4000n, depositedUnits: 200_000n });
      } finally {
        client.close();
      }
    },
    PAID_TEST_MS,
  );
});

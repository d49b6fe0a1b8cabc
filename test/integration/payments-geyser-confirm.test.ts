/**
 * Solana settlements learn their confirmation from the Geyser stream, against the real service and
 * the embedded localnet (a real Yellowstone server): the service's RPC goes through a counting
 * proxy, so the getSignatureStatuses requests of each paid call are counted. With the stream live,
 * paid calls settle with fewer status queries than calls (the stream confirms; the RPC is only the
 * slow safety check); with no stream at all they still settle, each by polling; with `finalized`
 * required, the RPC is still asked (the stream delivers `confirmed` transactions only).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { Localnet } from '@solana-x402-intel/localnet';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { countsBetween, type DelayProxy, startDelayProxy } from '../../bench/harness/delay-proxy.ts';
import { startService, type RunningService, type Upstreams } from '../../src/service/service.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { fundedPayer, type TestPayer } from '../helpers/svm-payer.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';
import { testServiceConfig } from '../helpers/test-support.ts';
import { COMMON_TEST_SEED } from '../helpers/world-snapshots.ts';

const CALLS = 4;
/** Nothing listens on port 1: the service's stream never connects. */
const NO_GEYSER = 'http://127.0.0.1:1';
let localnet: Localnet;
let upstreams: Upstreams;
let proxy: DelayProxy;
let payer: TestPayer;
const dataDirs: string[] = [];

beforeAll(async () => {
  // No background traffic: the stream and the RPC are asked of the file's own payments alone.
  ({ localnet, upstreams } = await startTestLocalnet(COMMON_TEST_SEED, { txsPerSlot: 0 }));
  // Zero delay: the proxy only counts what the service asks the RPC.
  proxy = await startDelayProxy(localnet.urls.rpc, 0);
  payer = await fundedPayer(localnet.urls.rpc, 1_000_000);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await localnet?.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function startWith(geyserUrl: string, argv: readonly string[] = []): Promise<RunningService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'geyser-confirm-'));
  dataDirs.push(dataDir);
  // Each answer waits for its confirmation here (no early answers), so the counts are read after it.
  const config = testServiceConfig(dataDir, ['--svm-early-ceiling', '0', ...argv]);
  return startService(config, { upstreams: { ...upstreams, rpcUrl: proxy.url, geyserUrl } });
}

/** Pays `CALLS` calls of /v1/epoch one after another; returns the status queries they cost the service. */
async function paidCalls(service: RunningService): Promise<number> {
  const payFetch = officialSvmFetch(payer, { rpcUrl: localnet.urls.rpc, stablecoinMint: localnet.stablecoinMint });
  const before = proxy.counts();
  for (let i = 0; i < CALLS; i++) {
    const res = await payFetch(`${service.url}/v1/epoch`);
    const body = await readJson(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({ success: true });
  }
  return countsBetween(before, proxy.counts()).calls.getSignatureStatuses ?? 0;
}

const streamLive = async (service: RunningService): Promise<boolean> => (await readJson(fetch(`${service.url}/health`))).timing.geyser.live === true;

describe('settlement confirmation from the Geyser stream', () => {
  it('with the stream live, paid calls settle with fewer status queries than calls', async () => {
    const service = await startWith(upstreams.geyserUrl);
    try {
      await vi.waitUntil(() => streamLive(service), { timeout: 30_000, interval: 100 });
      const queries = await paidCalls(service);
      // Polling alone needs at least one query per call; the stream answers most (normally all) of them.
      expect(queries).toBeLessThan(CALLS);
    } finally {
      await service.close();
    }
  }, 120_000);

  it('with no stream, paid calls still settle, each by polling the RPC', async () => {
    // Nothing to wait for: start-up does not wait the 5 s it gives a stream that may come.
    const service = await startWith(NO_GEYSER, ['--geyser-start-wait-ms', '0']);
    try {
      expect(await streamLive(service)).toBe(false);
      expect(await paidCalls(service)).toBeGreaterThanOrEqual(CALLS);
    } finally {
      await service.close();
    }
  }, 120_000);

  it('with finalized required, the RPC still has the last word on every call', async () => {
    const service = await startWith(upstreams.geyserUrl, ['--svm-commitment', 'finalized']);
    try {
      await vi.waitUntil(() => streamLive(service), { timeout: 30_000, interval: 100 });
      expect(await paidCalls(service)).toBeGreaterThanOrEqual(CALLS);
    } finally {
      await service.close();
    }
  }, 120_000);
});

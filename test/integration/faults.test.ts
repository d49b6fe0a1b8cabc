/**
 * Faults of the upstreams in the middle of paid calls, against the real service: proxies in front
 * of the Solana RPC and the market sources hang, reset, answer 500 or garbage while a payment
 * comes in. Expected: 502 or 503, nothing charged, and the next call after the fault ends pays
 * and answers normally; the ledger holds exactly the paid answers, chained. (The Geyser stream:
 * geyser-faults; the disk: disk-faults; a hung shutdown: geyser-close and shutdown-deadline.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { loadConfig } from '../../src/config.ts';
import type { Localnet } from '@solana-x402-intel/localnet';
import { startService, type RunningService } from '../../src/service/service.ts';
import { startFaultProxy, type FaultMode, type FaultProxy } from '../helpers/fault-proxy.ts';
import { chainProblem } from '../helpers/ledger-client.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { fundedPayer, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

let localnet: Localnet;
let rpc: FaultProxy;
let market: FaultProxy;
let service: RunningService;
let payer: TestPayer;
let payFetch: typeof fetch;
let dataDir: string;
let answered = 0;

beforeAll(async () => {
  const started = await startTestLocalnet();
  localnet = started.localnet;
  rpc = await startFaultProxy(localnet.urls.rpc);
  market = await startFaultProxy(localnet.urls.market);
  dataDir = mkdtempSync(join(tmpdir(), 'faults-'));
  // A hanging upstream is given up on in 1-2 s, not the default 5-10 s (a slow one, 300 ms a request, still answers).
  const waits = ['--market-timeout-ms', '1000', '--rpc-timeout-ms', '2000'];
  const config = loadConfig({}, ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--free-rate-per-second', '0', ...waits]);
  const sources = { jupiter: market.url, geckoterminal: market.url, magiceden: market.url, lending: market.url };
  service = await startService(config, { upstreams: { ...started.upstreams, rpcUrl: rpc.url, market: sources } });
  payer = await fundedPayer(localnet.urls.rpc, 2_000_000);
  // The payer builds its payments against the chain directly: only the service's upstreams fail.
  payFetch = officialSvmFetch(payer, { rpcUrl: localnet.urls.rpc, stablecoinMint: localnet.stablecoinMint });
}, 120_000);

afterAll(async () => {
  await service?.close();
  await Promise.all([rpc?.close(), market?.close()]);
  await localnet?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const balance = () => tokenBalance(localnet.urls.rpc, payer.signer.address, localnet.stablecoinMint);
let fresh = 0;
/**
 * The catalog example of `path`, made unique per call where the endpoint caches (a quote is
 * served from a 2 s cache, which would hide the fault): each call must reach the upstream.
 */
const exampleOf = (path: string) => () => {
  const example = { ...CATALOG.find((e) => e.path === path)!.example };
  if (example.amount) example.amount = String(BigInt(example.amount) + BigInt(++fresh));
  return `${path}?${new URLSearchParams(example)}`;
};
const FAULTS: readonly FaultMode[] = ['reset', 'fail', 'garbage', 'hang'];
const CASES = [
  { upstream: 'Solana RPC', proxy: () => rpc, call: exampleOf('/v1/simulate'), price: 10_000n },
  { upstream: 'market source', proxy: () => market, call: exampleOf('/v1/dex-quote'), price: 3_000n },
];

describe.each(CASES)('$upstream faults during a paid call', ({ proxy, call, price }) => {
  it.each(FAULTS)(
    '%s: 502 or 503 and nothing charged; after the fault the call pays and answers',
    async (mode) => {
      const before = await balance();
      const faultedBefore = proxy().faulted;
      proxy().mode = mode;
      try {
        const res = await payFetch(`${service.url}${call()}`);
        const body = await readJson(res);
        expect([502, 503], JSON.stringify(body)).toContain(res.status);
        expect(proxy().faulted).toBeGreaterThan(faultedBefore);
        expect(await balance()).toBe(before);
      } finally {
        proxy().mode = 'pass';
      }
      const ok = await payFetch(`${service.url}${call()}`);
      expect(ok.status).toBe(200);
      answered++;
      expect(await balance()).toBe(before - price);
    },
    60_000,
  );

  it('slow (300 ms a request): answered and charged once', async () => {
    const before = await balance();
    proxy().mode = 'slow';
    try {
      expect((await payFetch(`${service.url}${call()}`)).status).toBe(200);
      answered++;
    } finally {
      proxy().mode = 'pass';
    }
    expect(await balance()).toBe(before - price);
  }, 60_000);
});

describe('after every fault', () => {
  it('the ledger holds exactly the paid answers, one chain, and the service is healthy', async () => {
    const log = await readJson(fetch(`${service.url}/ledger?limit=1000`));
    expect(log.entries.filter((e: { kind: string }) => e.kind === 'payment')).toHaveLength(answered);
    expect(chainProblem(log.entries)).toBeNull();
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });
});

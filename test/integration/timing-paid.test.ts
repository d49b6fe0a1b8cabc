/**
 * The four Geyser-fed timing endpoints paid for over HTTP with the official x402 client against the
 * real service and its embedded localnet: 200, settlement header, the contract's response shapes,
 * and answers that come from the stream and state their freshness.
 */
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONSES } from '../../src/catalog/responses.ts';
import { readJson } from '../helpers/read-json.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { fundedPayer } from '../helpers/svm-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

let t: TestService;
let payFetch: typeof fetch;

beforeAll(async () => {
  t = await startTestService();
  const payer = await fundedPayer(t.localnet!.urls.rpc, 10_000_000);
  payFetch = officialSvmFetch(payer, { rpcUrl: t.localnet!.urls.rpc, stablecoinMint: t.localnet!.stablecoinMint });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

async function paid(pathAndQuery: string): Promise<Record<string, any>> {
  const res = await payFetch(`${t.url}${pathAndQuery}`);
  const body = (await readJson(res)) as Record<string, any>;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(res.headers.get('payment-response')).toBeTruthy();
  const path = pathAndQuery.split('?')[0]!;
  expect([...Value.Errors(RESPONSES[path]!, body)].map((e) => `${e.instancePath} ${e.message}`)).toEqual([]);
  return body;
}

describe('paid timing endpoints', () => {
  it('/v1/priority-fee and /v1/tipfloor answer from the stream with freshness', async () => {
    // The windows need a few confirmed slots after the service subscribed.
    await new Promise((r) => setTimeout(r, 3_000));
    const fee = await paid(`/v1/priority-fee?accounts=${t.localnet!.world.pools[0]!.vaultA}`);
    expect(fee.source).toBe('geyser');
    expect(fee.freshness.stream).toBe('live');
    expect(fee.observed.accountsRequested).toBe(1);
    expect(fee.note).toMatch(/not a prediction/);
    const tip = await paid('/v1/tipfloor?fresh=true');
    expect(tip.source).toBe('geyser');
    expect(tip.unit).toBe('lamports');
    expect(tip.p99).toBeGreaterThanOrEqual(tip.p50);
  }, 60_000);

  it('/v1/epoch and /v1/sgp-checkpoint answer from the stream', async () => {
    const epoch = await paid('/v1/epoch?rate=both');
    expect(epoch.source).toBe('geyser');
    expect(epoch.slotsInEpoch).toBe(64);
    const sgp = await paid('/v1/sgp-checkpoint?n=5');
    expect(sgp.source).toBe('geyser');
    expect(sgp.series.recent.length).toBeLessThanOrEqual(5);
    expect(sgp.latest.slotsInEpoch).toBe(64);
  }, 60_000);
});

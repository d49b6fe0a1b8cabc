/**
 * Real paid HTTP calls to the market endpoints with the official x402 client against the running
 * service and its embedded localnet: dex-quote, slippage-map and lending/markets answer 200 with a
 * receipt and a contract-shaped body; an unknown NFT symbol answers 404 and the pay-to balance does
 * not move (nothing settled).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../helpers/read-json.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { fundedPayer, tokenBalance } from '../helpers/svm-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { responseErrors } from '../helpers/check-response.ts';

const WSOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
let t: TestService;
let payFetch: typeof fetch;

const payToBalance = () => tokenBalance(t.localnet!.urls.rpc, t.service.terms.svm.payTo, t.localnet!.stablecoinMint);

beforeAll(async () => {
  t = await startTestService();
  const payer = await fundedPayer(t.localnet!.urls.rpc, 10_000_000);
  payFetch = officialSvmFetch(payer, { rpcUrl: t.localnet!.urls.rpc, stablecoinMint: t.localnet!.stablecoinMint });
}, 120_000);
afterAll(async () => {
  await t.close();
});

describe('paid market calls', () => {
  it('dex-quote: 200 with receipt and contract fields, price moved to pay-to', async () => {
    const before = await payToBalance();
    const res = await payFetch(`${t.url}/v1/dex-quote?inputMint=${WSOL}&outputMint=${USDC}&amount=1000000000&slippageBps=50`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-receipt')).toBeTruthy();
    const body = await readJson(res);
    expect(responseErrors('/v1/dex-quote', body)).toEqual([]);
    expect(BigInt(body.output.minReceived)).toBe((BigInt(body.output.amount) * 9950n) / 10_000n);
    expect(await payToBalance()).toBe(before + 3000n);
  }, 60_000);

  it('slippage-map and lending/markets: 200 with contract-shaped bodies', async () => {
    const map = await payFetch(`${t.url}/v1/slippage-map?inputMint=${WSOL}&outputMint=${USDC}&amount=1000000000&mults=0.5,1,2,1000`);
    expect(map.status).toBe(200);
    const mapBody = await readJson(map);
    expect(responseErrors('/v1/slippage-map', mapBody)).toEqual([]);
    expect(mapBody.points.map((p: { mult: number }) => p.mult)).toEqual([0.5, 1, 2, 1000]);
    const lending = await payFetch(`${t.url}/v1/lending/markets?limit=2`);
    expect(lending.status).toBe(200);
    const lendingBody = await readJson(lending);
    expect(responseErrors('/v1/lending/markets', lendingBody)).toEqual([]);
    expect(lendingBody.markets).toHaveLength(2);
  }, 60_000);

  it('nft-collection for an unknown symbol: 404, nothing settled', async () => {
    const before = await payToBalance();
    const res = await payFetch(`${t.url}/v1/nft-collection?symbol=no_such_collection`);
    expect(res.status).toBe(404);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(await readJson(res)).toMatchObject({ error: 'not_found' });
    expect(await payToBalance()).toBe(before);
    const ok = await payFetch(`${t.url}/v1/nft-collection?symbol=local_apes`);
    expect(ok.status).toBe(200);
    expect(responseErrors('/v1/nft-collection', await readJson(ok))).toEqual([]);
  }, 60_000);
});

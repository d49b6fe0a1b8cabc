/**
 * Real paid calls to the token endpoints through the running service with the official x402
 * client: token-risk and batch/token-risk answer 200 with a settlement header and a schema-valid
 * body; a mint that does not exist answers 404 and a mint too large to snapshot answers 502
 * snapshot_unavailable, and neither moves money.
 */
import Value from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONSES } from '../../src/catalog/responses.ts';
import { fundedPayer, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

let t: TestService;
let payer: TestPayer;
let payFetch: typeof fetch;

beforeAll(async () => {
  t = await startTestService();
  payer = await fundedPayer(t.localnet!.urls.rpc, 10_000_000);
  payFetch = officialSvmFetch(payer, { rpcUrl: t.localnet!.urls.rpc, stablecoinMint: t.localnet!.stablecoinMint });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const balance = () => tokenBalance(t.localnet!.urls.rpc, payer.signer.address, t.localnet!.stablecoinMint);

describe('paid token endpoints', () => {
  it('token-risk: 200, settled, schema-valid', async () => {
    const bonk = t.localnet!.world.mints.get('BONK')!.address;
    const before = await balance();
    const res = await payFetch(`${t.url}/v1/token-risk?mint=${bonk}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('payment-response')).toBeTruthy();
    const body = (await res.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(Value.Check(RESPONSES['/v1/token-risk']!, body)).toBe(true);
    expect(body).toMatchObject({ mint: bonk, mintAuthority: { present: false }, freezeAuthority: { present: false } });
    expect(before - (await balance())).toBe(28_000n);
  }, 60_000);

  it('batch/token-risk: duplicates removed, invalid element explicit, 200 settled', async () => {
    const w = t.localnet!.world;
    const [bonk, usdc] = [w.mints.get('BONK')!.address, w.mints.get('USDC')!.address];
    const res = await payFetch(`${t.url}/v1/batch/token-risk?mints=${bonk},${usdc},${bonk},xyz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('payment-response')).toBeTruthy();
    const body = (await res.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(Value.Check(RESPONSES['/v1/batch/token-risk']!, body)).toBe(true);
    expect(body.requested).toBe(3);
    expect(body.results.map((r: { mint: string; error?: string }) => r.error ?? r.mint)).toEqual([bonk, usdc, 'invalid_mint']);
  }, 60_000);

  it('a mint that does not exist: 404 not_found, nothing charged', async () => {
    const before = await balance();
    const res = await payFetch(`${t.url}/v1/token-risk?mint=11111111111111111111111111111112`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('not_found');
    expect(await balance()).toBe(before);
  }, 60_000);

  it('token-holders of USDT (too many accounts to snapshot): 502 snapshot_unavailable, nothing charged', async () => {
    const before = await balance();
    const res = await payFetch(`${t.url}/v1/token-holders?mint=${t.localnet!.world.mints.get('USDT')!.address}`);
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: string; rpcCode: number })).toMatchObject({ error: 'snapshot_unavailable', rpcCode: -32010 });
    expect(await balance()).toBe(before);
  }, 60_000);
});

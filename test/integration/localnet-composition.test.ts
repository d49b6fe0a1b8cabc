import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Localnet } from '../../src/localnet/start-localnet.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

let net: Localnet;
const rpc = (method: string, params: unknown[] = []) =>
  readJson(fetch(net.urls.rpc, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }));

beforeAll(async () => {
  ({ localnet: net } = await startTestLocalnet('composition-1'));
});
afterAll(async () => {
  await net.close();
});

describe('startLocalnet', () => {
  it('serves the stablecoin mint with 6 decimals over RPC', async () => {
    const res = await rpc('getAccountInfo', [net.stablecoinMint, { encoding: 'jsonParsed' }]);
    expect(res.result.value.data.parsed).toMatchObject({ type: 'mint', info: { decimals: 6, isInitialized: true } });
  });

  it('refuses to snapshot the mint with too many accounts, as mainnet nodes do', async () => {
    const res = await rpc('getTokenLargestAccounts', [net.world.largeHolderMint.mint]);
    expect(res.error.code).toBe(-32010);
    const small = await rpc('getTokenLargestAccounts', [net.world.mints.get('FLAT')?.address ?? [...net.world.mints.values()].find((m) => m.kind === 'holders')!.address]);
    expect(small.result.value.length).toBeGreaterThan(0);
  });

  it('produces slots with traffic while running', async () => {
    const before = (await rpc('getSlot')).result as number;
    await expect.poll(async () => (await rpc('getSlot')).result as number, { timeout: 20_000, interval: 50 }).toBeGreaterThan(before);
    expect(net.producer.history().some((s) => s.transactions.length > 0)).toBe(true);
  });

  it('quotes from the pools on the market surface', async () => {
    const q = await readJson(fetch(`${net.urls.market}/swap/v1/quote?inputMint=So11111111111111111111111111111111111111112&outputMint=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&amount=1000000000`));
    expect(Number(q.outAmount)).toBeGreaterThan(100_000_000);
    expect(q.routePlan.length).toBeGreaterThan(0);
  });
});

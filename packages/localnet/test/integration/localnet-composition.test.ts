import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner } from '@solana/kit';
import { SERVICE_FEE_PAYER_LAMPORTS } from '../../src/service-accounts.ts';
import { startLocalnet, type Localnet } from '../../src/start-localnet.ts';

/** The JSON body of a response, typed loosely for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on shapes they do not declare
const readJson = async (res: Promise<Response>): Promise<any> => (await res).json();

let net: Localnet;
const rpc = (method: string, params: unknown[] = []) =>
  readJson(
    fetch(net.urls.rpc, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }),
  );

beforeAll(async () => {
  net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 64, seed: 'composition-1' });
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
    const small = await rpc('getTokenLargestAccounts', [
      net.world.mints.get('FLAT')?.address ?? [...net.world.mints.values()].find((m) => m.kind === 'holders')!.address,
    ]);
    expect(small.result.value.length).toBeGreaterThan(0);
  });

  it('produces slots with traffic while running', async () => {
    const before = (await rpc('getSlot')).result as number;
    await expect.poll(async () => (await rpc('getSlot')).result as number, { timeout: 20_000, interval: 50 }).toBeGreaterThan(before);
    expect(net.producer.history().some((s) => s.transactions.length > 0)).toBe(true);
  });

  it('quotes from the pools on the market surface', async () => {
    const q = await readJson(
      fetch(
        `${net.urls.market}/swap/v1/quote?inputMint=So11111111111111111111111111111111111111112&outputMint=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&amount=1000000000`,
      ),
    );
    expect(Number(q.outAmount)).toBeGreaterThan(100_000_000);
    expect(q.routePlan.length).toBeGreaterThan(0);
  });

  it('readies the service accounts: SOL for the fee payer, an empty stablecoin account for payTo', async () => {
    const [feePayer, payTo] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    await net.prepareServiceAccounts({ feePayer: feePayer.address, payTo: payTo.address });
    expect((await rpc('getBalance', [feePayer.address, { commitment: 'processed' }])).result.value).toBe(Number(SERVICE_FEE_PAYER_LAMPORTS));
    const accounts = (await rpc('getTokenAccountsByOwner', [payTo.address, { mint: net.stablecoinMint }, { encoding: 'jsonParsed', commitment: 'processed' }]))
      .result.value;
    expect(accounts).toHaveLength(1);
    expect(accounts[0].account.data.parsed.info.tokenAmount.amount).toBe('0');
  });
});

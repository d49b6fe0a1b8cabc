/**
 * The market stand-ins over real HTTP (port 0, plain fetch) against a synthetic pool chain:
 * quote math checked against hand-computed constant-product values, GeckoTerminal JSON:API shapes
 * and stats moving with swaps, Magic Eden stats from the fixture, Kamino lending list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PoolState } from '../../src/chain/types.ts';
import { startMarketServer, type MarketServer } from '../../src/market/market-server.ts';
import { loadMarketFixture } from '../../src/market/market-fixture.ts';
import { USDC_MINT, WSOL_MINT } from '../../src/market/market-prices.ts';
import { createSyntheticPoolChain, syntheticAddress, type SyntheticPoolChain } from '../fixtures/synthetic-pool-chain.ts';

const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const LONE_X = syntheticAddress('mint:lone-x');
const LONE_Y = syntheticAddress('mint:lone-y');
const T0 = 1_750_000_000;

function pool(
  name: string,
  mintA: string,
  mintB: string,
  reserveA: bigint,
  reserveB: bigint,
  decA: number,
  decB: number,
  feeBps: number,
  createdAt: number,
): PoolState {
  return {
    address: syntheticAddress(`pool:${name}`),
    label: 'Raydium',
    mintA,
    mintB,
    vaultA: syntheticAddress(`vault:${name}:a`),
    vaultB: syntheticAddress(`vault:${name}:b`),
    decimalsA: decA,
    decimalsB: decB,
    reserveA,
    reserveB,
    feeBps,
    createdAt,
  };
}

// 1000 SOL / 150000 USDC; 1e9 BONK / 100 SOL; 1e6 JUP / 800000 USDC; an island pair.
const SOL_USDC = pool('sol-usdc', WSOL_MINT, USDC_MINT, 1_000_000_000_000n, 150_000_000_000n, 9, 6, 25, T0 - 86_400);
const BONK_SOL = pool('bonk-sol', BONK, WSOL_MINT, 100_000_000_000_000n, 100_000_000_000n, 5, 9, 30, T0 - 3600);
const JUP_USDC = pool('jup-usdc', JUP, USDC_MINT, 1_000_000_000_000n, 800_000_000_000n, 6, 6, 25, T0 - 600);
const ISLAND = pool('island', LONE_X, LONE_Y, 1_000_000n, 1_000_000n, 6, 6, 25, T0 - 7200);

let chain: SyntheticPoolChain;
let server: MarketServer;
let clock = T0;

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  chain = createSyntheticPoolChain([SOL_USDC, BONK_SOL, JUP_USDC, ISLAND]);
  chain.setSupply(BONK, 8_800_000_000_000_000_000n);
  server = await startMarketServer({
    pools: chain.reader,
    events: chain.events,
    fixture: loadMarketFixture(),
    host: '127.0.0.1',
    port: 0,
    now: () => clock,
  });
});

afterAll(async () => {
  await server.close();
});

describe('Jupiter /swap/v1/quote', () => {
  it('quotes a direct pool with hand-computed constant-product values', async () => {
    const { status, body } = await get(`/swap/v1/quote?inputMint=${WSOL_MINT}&outputMint=${USDC_MINT}&amount=1000000000`);
    expect(status).toBe(200);
    // afterFee = 1e9 * 9975/10000 = 997_500_000; out = floor(997_500_000 * 150e9 / (1e12 + 997_500_000))
    expect(body).toMatchObject({
      inputMint: WSOL_MINT,
      inAmount: '1000000000',
      outputMint: USDC_MINT,
      outAmount: '149475897',
      otherAmountThreshold: '148728517',
      swapMode: 'ExactIn',
      slippageBps: 50,
      platformFee: null,
      priceImpactPct: '0.000996505985279683',
      contextSlot: 1000,
    });
    expect(body.routePlan).toEqual([
      {
        swapInfo: {
          ammKey: SOL_USDC.address,
          label: 'Raydium',
          inputMint: WSOL_MINT,
          outputMint: USDC_MINT,
          inAmount: '1000000000',
          outAmount: '149475897',
          feeAmount: '2500000',
          feeMint: WSOL_MINT,
        },
        percent: 100,
      },
    ]);
    expect(typeof body.timeTaken).toBe('number');
    expect(Number(body.swapUsdValue)).toBeCloseTo(150, 9);
  });

  it('routes BONK -> SOL -> USDC when no direct pool exists', async () => {
    const { status, body } = await get(`/swap/v1/quote?inputMint=${BONK}&outputMint=${USDC_MINT}&amount=1000000000000&slippageBps=100`);
    expect(status).toBe(200);
    // hop1: afterFee 997e9, out floor(997e9*1e11/(1e14+997e9)) = 987_158_034 lamports (fee 3e9 BONK)
    // hop2: afterFee 984_690_138, out floor(984_690_138*150e9/(1e12+984_690_138)) = 147_558_221
    expect(body.routePlan.map((h: any) => [h.swapInfo.ammKey, h.swapInfo.inAmount, h.swapInfo.outAmount, h.swapInfo.feeAmount])).toEqual([
      [BONK_SOL.address, '1000000000000', '987158034', '3000000000'],
      [SOL_USDC.address, '987158034', '147558221', '2467896'],
    ]);
    expect(body.outAmount).toBe('147558221');
    expect(body.otherAmountThreshold).toBe(String((147_558_221n * 9_900n) / 10_000n));
    // 1 - (1e14/(1e14+997e9)) * (1e12/(1e12+984_690_138))
    expect(body.priceImpactPct).toBe('0.010845590935535608');
  });

  it('honours onlyDirectRoutes and slippage bounds', async () => {
    const direct = await get(`/swap/v1/quote?inputMint=${BONK}&outputMint=${USDC_MINT}&amount=1000&onlyDirectRoutes=true`);
    expect(direct).toEqual({ status: 400, body: { error: 'Could not find any route', errorCode: 'COULD_NOT_FIND_ANY_ROUTE' } });
    const zero = await get(`/swap/v1/quote?inputMint=${WSOL_MINT}&outputMint=${USDC_MINT}&amount=1000000000&slippageBps=0`);
    expect(zero.body.otherAmountThreshold).toBe(zero.body.outAmount);
  });

  it('answers bad parameters with 400 and Jupiter error codes', async () => {
    const cases: [string, string][] = [
      [`inputMint=${WSOL_MINT}&outputMint=${USDC_MINT}`, 'INVALID_REQUEST'],
      [`inputMint=${WSOL_MINT}&outputMint=${USDC_MINT}&amount=1.5`, 'INVALID_REQUEST'],
      [`inputMint=${WSOL_MINT}&outputMint=${USDC_MINT}&amount=0`, 'INVALID_REQUEST'],
      [`inputMint=${WSOL_MINT}&outputMint=${USDC_MINT}&amount=18446744073709551616`, 'INVALID_REQUEST'],
      [`inputMint=notamint&outputMint=${USDC_MINT}&amount=1`, 'INVALID_REQUEST'],
      [`inputMint=${WSOL_MINT}&outputMint=${USDC_MINT}&amount=1&slippageBps=10001`, 'INVALID_REQUEST'],
      [`inputMint=${WSOL_MINT}&outputMint=${USDC_MINT}&amount=1&swapMode=Sideways`, 'INVALID_REQUEST'],
      [`inputMint=${WSOL_MINT}&outputMint=${USDC_MINT}&amount=1&swapMode=ExactOut`, 'NOT_SUPPORTED'],
      [`inputMint=${USDC_MINT}&outputMint=${USDC_MINT}&amount=1`, 'CIRCULAR_ARBITRAGE_IS_DISABLED'],
      [`inputMint=${USDT}&outputMint=${USDC_MINT}&amount=1`, 'TOKEN_NOT_TRADABLE'],
      [`inputMint=${LONE_X}&outputMint=${USDC_MINT}&amount=1000`, 'COULD_NOT_FIND_ANY_ROUTE'],
    ];
    for (const [query, code] of cases) {
      const { status, body } = await get(`/swap/v1/quote?${query}`);
      expect({ query, status, code: body.errorCode, hasMessage: typeof body.error === 'string' }).toEqual({ query, status: 400, code, hasMessage: true });
    }
  });
});

describe('GeckoTerminal /api/v2/networks/solana/*', () => {
  it('lists new pools newest first as JSON:API with included tokens and dex', async () => {
    const { status, body } = await get('/api/v2/networks/solana/new_pools?include=base_token,quote_token,dex');
    expect(status).toBe(200);
    expect(body.data.map((p: any) => p.attributes.address)).toEqual([JUP_USDC, BONK_SOL, ISLAND, SOL_USDC].map((p) => p.address));
    const bonk = body.data[1];
    expect(bonk).toMatchObject({
      id: `solana_${BONK_SOL.address}`,
      type: 'pool',
      attributes: { name: 'Bonk / SOL', pool_created_at: new Date((T0 - 3600) * 1000).toISOString().replace('.000', ''), market_cap_usd: null },
      relationships: {
        base_token: { data: { id: `solana_${BONK}`, type: 'token' } },
        quote_token: { data: { id: `solana_${WSOL_MINT}`, type: 'token' } },
        dex: { data: { id: 'raydium', type: 'dex' } },
      },
    });
    expect(Number(bonk.attributes.base_token_price_usd)).toBeCloseTo(1.5e-5, 15);
    expect(Number(bonk.attributes.base_token_price_native_currency)).toBeCloseTo(1e-7, 18);
    expect(Number(bonk.attributes.reserve_in_usd)).toBeCloseTo(30_000, 4);
    // fdv = 8.8e13 BONK (raw 8.8e18, 5 decimals) * 1.5e-5 USD
    expect(Number(bonk.attributes.fdv_usd)).toBeCloseTo(1_320_000_000, 0);
    expect(body.data[2].attributes.base_token_price_usd).toBeNull();
    expect(body.data[2].attributes.fdv_usd).toBeNull();
    const bonkToken = body.included.find((i: any) => i.id === `solana_${BONK}`);
    expect(bonkToken).toEqual({
      id: `solana_${BONK}`,
      type: 'token',
      attributes: { address: BONK, name: 'Bonk', symbol: 'Bonk', image_url: null, coingecko_coin_id: null, decimals: 5 },
    });
    expect(body.included.find((i: any) => i.id === `solana_${LONE_X}`).attributes.symbol).toBeNull();
    expect(body.included.filter((i: any) => i.type === 'dex')).toEqual([{ id: 'raydium', type: 'dex', attributes: { name: 'Raydium' } }]);
  });

  it('reports zero activity before any swap and omits included without include', async () => {
    const { body } = await get('/api/v2/networks/solana/trending_pools');
    expect(body.included).toBeUndefined();
    for (const p of body.data) {
      expect(p.attributes.price_change_percentage).toEqual({ m5: '0', h1: '0', h6: '0', h24: '0' });
      expect(p.attributes.transactions.h24).toEqual({ buys: 0, sells: 0, buyers: 0, sellers: 0 });
      expect(p.attributes.volume_usd.h24).toBe('0');
    }
    // No trades yet: deepest liquidity first (SOL/USDC 300k, JUP/USDC 1.6M, BONK/SOL 30k, island unpriced).
    expect(body.data.map((p: any) => p.attributes.address)).toEqual([JUP_USDC, SOL_USDC, BONK_SOL, ISLAND].map((p) => p.address));
  });

  it('moves stats and the trending order after swaps seen on chain', async () => {
    clock = T0 + 100;
    // Someone buys 9.9 SOL for 1500 USDC, then sells 5 SOL back for 750 USDC; the BONK pool sees one sell.
    chain.swap({ pool: SOL_USDC.address, trader: 'alice', postA: 990_100_000_000n, postB: 151_500_000_000n, blockTime: clock });
    chain.swap({ pool: SOL_USDC.address, trader: 'bob', postA: 995_100_000_000n, postB: 150_750_000_000n, blockTime: clock + 5 });
    chain.swap({ pool: BONK_SOL.address, trader: 'carol', postA: 101_000_000_000_000n, postB: 99_010_000_000n, blockTime: clock + 6 });
    clock += 10;
    const { body } = await get('/api/v2/networks/solana/trending_pools?duration=5m');
    expect(body.data.map((p: any) => p.attributes.address).slice(0, 2)).toEqual([SOL_USDC.address, BONK_SOL.address]);
    const sol = body.data[0].attributes;
    expect(sol.transactions.m5).toEqual({ buys: 1, sells: 1, buyers: 1, sellers: 1 });
    expect(Number(sol.volume_usd.h1)).toBeCloseTo(2250, 6);
    const expectedPct = (150_750 / 995.1 / 150 - 1) * 100;
    expect(sol.price_change_percentage.h24).toBe(expectedPct.toFixed(2));
    expect(Number(sol.base_token_price_usd)).toBeCloseTo(150_750 / 995.1, 9);
    const bonk = body.data[1].attributes;
    expect(bonk.transactions.h1).toEqual({ buys: 0, sells: 1, buyers: 0, sellers: 1 });
    expect(Number(bonk.price_change_percentage.h1)).toBeLessThan(0);
  });

  it('answers errors in GeckoTerminal form', async () => {
    expect(await get('/api/v2/networks/eth/trending_pools')).toEqual({ status: 404, body: { errors: [{ status: '404', title: 'Not Found' }] } });
    const bad = await get('/api/v2/networks/solana/trending_pools?duration=2h');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].status).toBe('400');
    expect((await get('/api/v2/networks/solana/new_pools?page=11')).status).toBe(400);
    expect((await get('/api/v2/networks/solana/new_pools?page=x')).status).toBe(400);
    expect(await get('/api/v2/networks/solana/new_pools?page=2')).toEqual({ status: 200, body: { data: [] } });
  });
});

describe('Magic Eden /v2/collections/{symbol}/*', () => {
  const fixture = loadMarketFixture();
  const apes = fixture.nftCollections.find((c) => c.symbol === 'local_apes');

  it('derives stats from the fixture: floor is the lowest ask, 24 h average from recent sales', async () => {
    if (apes === undefined) throw new Error('fixture lost local_apes');
    const { status, body } = await get('/v2/collections/local_apes/stats');
    expect(status).toBe(200);
    const asks = apes.listings.map((l) => Number(l.priceLamports));
    const elapsed = clock - T0;
    const recent = apes.sales.filter((s) => s.secondsAgo + elapsed < 86_400).map((s) => Number(s.priceLamports));
    expect(recent.length).toBeGreaterThan(0);
    expect(body).toEqual({
      symbol: 'local_apes',
      floorPrice: Math.min(...asks),
      listedCount: asks.length,
      listedTotalValue: asks.reduce((a, b) => a + b, 0),
      avgPrice24hr: recent.reduce((a, b) => a + b, 0) / recent.length,
      volume24hr: recent.reduce((a, b) => a + b, 0),
      volumeAll: apes.sales.reduce((a, s) => a + Number(s.priceLamports), 0),
    });
  });

  it('lists asks cheapest first and sales newest first, prices in SOL', async () => {
    const listings = await get('/v2/collections/local_apes/listings?limit=3');
    expect(listings.body).toHaveLength(3);
    expect(listings.body[0].price).toBe(12.5);
    expect(listings.body[0].price).toBeLessThanOrEqual(listings.body[1].price);
    const sales = await get('/v2/collections/local_apes/activities?type=buyNow&limit=500');
    expect(sales.body).toHaveLength(apes?.sales.length ?? -1);
    expect(sales.body[0]).toMatchObject({ type: 'buyNow', collectionSymbol: 'local_apes' });
    expect(sales.body[0].blockTime).toBeGreaterThanOrEqual(sales.body[1].blockTime);
    expect((await get('/v2/collections/local_apes/listings?limit=0')).body).toEqual({
      errors: [{ value: '0', msg: 'Invalid value', param: 'limit', location: 'query' }],
    });
  });

  it('answers 404 for an unknown symbol', async () => {
    expect(await get('/v2/collections/no_such_collection/stats')).toEqual({ status: 404, body: { msg: 'Collection not found' } });
  });
});

describe('Kamino lending markets', () => {
  it('lists markets and prices reserves with the pools', async () => {
    const markets = await get('/v2/kamino-market');
    expect(markets.status).toBe(200);
    expect(markets.body.map((m: any) => m.name)).toEqual(['Main Market', 'JLP Market', 'Altcoins Market']);
    const main = markets.body[0];
    expect(Object.keys(main).sort()).toEqual(['description', 'isCurated', 'isPrimary', 'lendingMarket', 'lookupTable', 'name']);
    const { status, body } = await get(`/kamino-market/${main.lendingMarket}/reserves/metrics?env=mainnet-beta`);
    expect(status).toBe(200);
    const usdc = body.find((r: any) => r.liquidityToken === 'USDC');
    expect(usdc).toMatchObject({ liquidityTokenMint: USDC_MINT, totalSupply: '42000000', totalSupplyUsd: '42000000', totalBorrowUsd: '29000000' });
    const sol = body.find((r: any) => r.liquidityToken === 'SOL');
    expect(Number(sol.totalSupplyUsd)).toBeCloseTo(310_000 * (150_750 / 995.1), 3);
    // No USDT pool in this world: that reserve has no USD price and is left out.
    expect(body.find((r: any) => r.liquidityToken === 'USDT')).toBeUndefined();
  });

  it('rejects unknown and malformed markets', async () => {
    expect((await get(`/kamino-market/${syntheticAddress('nope')}/reserves/metrics`)).status).toBe(404);
    expect((await get('/kamino-market/xyz/reserves/metrics')).status).toBe(400);
    expect((await get(`/kamino-market/${syntheticAddress('nope')}/reserves/metrics?env=devnet`)).status).toBe(400);
  });
});

describe('server', () => {
  it('answers unknown paths with 404 and other methods with 405, and keeps serving', async () => {
    expect((await get('/nope')).status).toBe(404);
    const post = await fetch(`${server.url}/swap/v1/quote`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect((await get(`/swap/v1/quote?inputMint=${WSOL_MINT}&outputMint=${USDC_MINT}&amount=1000`)).status).toBe(200);
  });
});

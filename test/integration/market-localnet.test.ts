/**
 * The market group against the embedded localnet's stand-ins (real Jupiter / GeckoTerminal /
 * Magic Eden / Kamino shapes over HTTP): each handler's answer is checked against what the
 * stand-in serves directly and against the committed market fixture (NFT floors, sales, lending
 * markets), and against the RESPONSES schemas. The block producer is stopped so reserves hold
 * still between the handler's quote and the test's own. A second group pointed at a dead port
 * answers 502 everywhere with nothing guessed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaidPath } from '../../src/catalog/endpoints.ts';
import { loadConfig } from '../../src/config.ts';
import { createRpcClient, createRpcTransport } from '../../src/chain/solana/rpc-client.ts';
import { createMarketGroup } from '../../src/intel/market/market-group.ts';
import type { HandlerDeps, PaidHandlerLookup } from '../../src/intel/handler-group.ts';
import { loadMarketFixture, type Localnet } from '@solana-x402-intel/localnet';
import { createWorkerPool, type WorkerPool } from '../../src/pool/worker-pool.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';
import { impactBand } from '../../src/intel/market/market-math.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';
import { responseErrors } from '../helpers/check-response.ts';
import { serviceFault } from '../helpers/test-support.ts';

const WSOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const DAY = 86_400;
const fixture = loadMarketFixture();

let localnet: Localnet;
let marketUrl: string;
let pool: WorkerPool<PoolTasks>;
let group: { readonly handlers: PaidHandlerLookup };
let deadGroup: { readonly handlers: PaidHandlerLookup };
let dataDir: string;

const call = (g: { readonly handlers: PaidHandlerLookup }, path: PaidPath, query: Record<string, unknown>) =>
  g.handlers[path]!(query, new AbortController().signal) as Promise<any>;

async function direct(path: string): Promise<any> {
  const res = await fetch(`${marketUrl}${path}`);
  return res.json();
}

beforeAll(async () => {
  const net = await startTestLocalnet('market-1', FULL_TRAFFIC);
  localnet = net.localnet;
  localnet.producer.stop();
  marketUrl = net.upstreams.market.jupiter;
  dataDir = mkdtempSync(join(tmpdir(), 'market-it-'));
  pool = createWorkerPool({ size: 2 });
  const config = loadConfig({}, ['--data-dir', dataDir, '--market-timeout-ms', '2000']);
  const rpcTransport = createRpcTransport({ url: net.upstreams.rpcUrl });
  const base: Omit<HandlerDeps, 'market'> = {
    settings: config,
    rpc: createRpcClient(rpcTransport),
    rpcTransport,
    pool,
  };
  group = createMarketGroup({ ...base, market: net.upstreams.market });
  const dead = 'http://127.0.0.1:1';
  deadGroup = createMarketGroup({ ...base, market: { jupiter: dead, geckoterminal: dead, magiceden: dead, lending: dead } });
}, 120_000);

afterAll(async () => {
  await pool?.close();
  await localnet?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('dex-quote on the localnet', () => {
  it('matches the stand-in quote: output, minReceived at slippageBps, USD value, route and slot', async () => {
    const body = await call(group, '/v1/dex-quote', { inputMint: WSOL, outputMint: USDC, amount: '1000000000', slippageBps: 75 });
    expect(responseErrors('/v1/dex-quote', body)).toEqual([]);
    const q = await direct(`/swap/v1/quote?inputMint=${WSOL}&outputMint=${USDC}&amount=1000000000&slippageBps=75`);
    expect(body.output.amount).toBe(q.outAmount);
    expect(body.output.minReceived).toBe(q.otherAmountThreshold);
    expect(body.output.minReceived).toBe(String((BigInt(q.outAmount) * 9925n) / 10_000n));
    expect(body.output.swapUsdValue).toBeCloseTo(Number(q.swapUsdValue), 6);
    expect(body.priceImpact.pct).toBeCloseTo(Number(q.priceImpactPct) * 100, 9);
    expect(body.priceImpact.band).toBe(impactBand(Number(q.priceImpactPct) * 100));
    expect(body.route.path.map((p: any) => p.amm)).toEqual(q.routePlan.map((l: any) => l.swapInfo.label));
    expect(body.contextSlot).toBe(q.contextSlot);
  });

  it('routes BONK to USDC through two hops', async () => {
    const body = await call(group, '/v1/dex-quote', { inputMint: BONK, outputMint: USDC, amount: '100000000000' });
    expect(body.route.hops).toBe(2);
    expect(body.route.path[0].outputMint).toBe(body.route.path[1].inputMint);
  });

  it('answers 404 when the stand-in has no route', async () => {
    const unknownMint = '9nEqaUcb16sQ3Tn1psbkWqyhPdLmfHWjKGymREjsAgTE';
    expect((await serviceFault(call(group, '/v1/dex-quote', { inputMint: unknownMint, outputMint: USDC, amount: '1000' }))).code).toBe('not_found');
  });
});

describe('slippage-map on the localnet', () => {
  it('sweeps 8 sizes; impact grows with size, bands and depth agree with per-size quotes', async () => {
    const mults = [0.1, 1, 10, 50, 100, 500, 1000, 5000];
    const body = await call(group, '/v1/slippage-map', { inputMint: WSOL, outputMint: USDC, amount: '1000000000', mults });
    expect(responseErrors('/v1/slippage-map', body)).toEqual([]);
    expect(body.points).toHaveLength(8);
    const impacts: number[] = [];
    for (const p of body.points) {
      const q = await direct(`/swap/v1/quote?inputMint=${WSOL}&outputMint=${USDC}&amount=${p.sizeBaseUnits}&slippageBps=50`);
      expect(p.outAmount).toBe(q.outAmount);
      expect(p.priceImpactPct).toBeCloseTo(Number(q.priceImpactPct) * 100, 9);
      expect(p.band).toBe(impactBand(p.priceImpactPct));
      impacts.push(p.priceImpactPct);
    }
    expect([...impacts].sort((a, b) => a - b)).toEqual(impacts);
    expect(new Set(body.points.map((p: any) => p.band)).size).toBeGreaterThanOrEqual(3);
    const under = (t: number) => body.points.filter((p: any) => p.priceImpactPct < t).at(-1);
    expect(body.depth.under1pct.maxUsd).toBe(under(1)?.swapUsdValue ?? null);
    expect(body.depth.under5pct.maxUsd).toBe(under(5)?.swapUsdValue ?? null);
  });
});

describe('trending-tokens and new-pairs on the localnet', () => {
  it('follow the stand-in order and figures, trimmed to limit', async () => {
    const body = await call(group, '/v1/trending-tokens', { limit: 5 });
    expect(responseErrors('/v1/trending-tokens', body)).toEqual([]);
    const doc = await direct('/api/v2/networks/solana/trending_pools');
    expect(body.count).toBe(5);
    expect(body.pools.map((p: any) => p.poolAddress)).toEqual(doc.data.slice(0, 5).map((d: any) => d.attributes.address));
    const first = doc.data[0];
    expect(body.pools[0]).toMatchObject({
      name: first.attributes.name,
      baseMint: first.relationships.base_token.data.id.replace('solana_', ''),
      marketCapUsd: 'unknown',
    });
    expect(body.pools[0].liquidityUsd).toBeCloseTo(Number(first.attributes.reserve_in_usd), 4);
  });

  it('lists the newest pools first with their age', async () => {
    const body = await call(group, '/v1/new-pairs', {});
    expect(responseErrors('/v1/new-pairs', body)).toEqual([]);
    // The producer launches a pool a minute (pool-launches.ts): a slow run may list some before the seeded ones.
    expect(body.count).toBeGreaterThanOrEqual(Math.min(15, localnet.world.pools.length));
    expect(body.count).toBeLessThanOrEqual(15);
    const ages = body.pools.map((p: any) => p.ageMinutes);
    expect([...ages].sort((a, b) => a - b)).toEqual(ages);
    // The world's youngest seeded pool is RUGME-SOL, created 2 hours before the localnet started.
    const seeded = new Set(localnet.world.pools.map((p) => p.address));
    const youngestSeeded = body.pools.find((p: any) => seeded.has(p.poolAddress));
    expect(youngestSeeded.poolAddress).toBe(localnet.world.pools.find((p) => p.label === 'RUGME-SOL')!.address);
    expect(youngestSeeded.ageMinutes).toBeGreaterThanOrEqual(120);
    expect(youngestSeeded.ageMinutes).toBeLessThan(240);
  });
});

describe('nft-collection on the localnet', () => {
  it('floor is the lowest ask of the fixture; 24 h average and 7-day volume from its sales', async () => {
    for (const c of fixture.nftCollections) {
      const body = await call(group, '/v1/nft-collection', { symbol: c.symbol });
      expect(responseErrors('/v1/nft-collection', body)).toEqual([]);
      const floor = c.listings.map((l) => Number(l.priceLamports)).reduce((a, b) => Math.min(a, b));
      const day = c.sales.filter((s) => s.secondsAgo < DAY).map((s) => Number(s.priceLamports));
      const week = c.sales.filter((s) => s.secondsAgo < 7 * DAY).map((s) => Number(s.priceLamports));
      expect(body).toMatchObject({ symbol: c.symbol, floorPriceLamports: floor, listedCount: c.listings.length, sales7d: week.length });
      expect(body.floorPriceSol).toBeCloseTo(floor / 1e9, 12);
      expect(body.volume7dSol).toBeCloseTo(week.reduce((a, b) => a + b, 0) / 1e9, 6);
      if (day.length > 0) expect(body.avgPrice24hrSol).toBeCloseTo(day.reduce((a, b) => a + b, 0) / day.length / 1e9, 6);
    }
  });

  it('404 for a symbol the marketplace does not know', async () => {
    expect((await serviceFault(call(group, '/v1/nft-collection', { symbol: 'no_such_collection' }))).code).toBe('not_found');
  });
});

describe('lending/markets on the localnet', () => {
  it('lists the fixture markets with TVL = supply - borrows from the reserve metrics, largest first', async () => {
    const body = await call(group, '/v1/lending/markets', {});
    expect(responseErrors('/v1/lending/markets', body)).toEqual([]);
    expect(body.markets.map((m: any) => m.address).sort()).toEqual(fixture.lendingMarkets.map((m) => m.lendingMarket).sort());
    for (const m of body.markets) {
      const reserves = await direct(`/kamino-market/${m.address}/reserves/metrics?env=mainnet-beta`);
      const tvl = reserves.reduce((s: number, r: any) => s + Math.max(0, Number(r.totalSupplyUsd) - Number(r.totalBorrowUsd)), 0);
      expect(m.tvlUsd).toBeCloseTo(tvl, 4);
      expect(m.name).toBe(fixture.lendingMarkets.find((f) => f.lendingMarket === m.address)!.name);
    }
    const tvls = body.markets.map((m: any) => m.tvlUsd);
    expect([...tvls].sort((a, b) => b - a)).toEqual(tvls);
    expect((await call(group, '/v1/lending/markets', { limit: 1 })).markets).toHaveLength(1);
  });
});

describe('market sources down', () => {
  it('every market endpoint answers 502 (upstream_unavailable), nothing guessed', async () => {
    const cases: [PaidPath, Record<string, unknown>][] = [
      ['/v1/dex-quote', { inputMint: WSOL, outputMint: USDC, amount: '1000' }],
      ['/v1/slippage-map', { inputMint: WSOL, outputMint: USDC, amount: '1000' }],
      ['/v1/trending-tokens', {}],
      ['/v1/new-pairs', {}],
      ['/v1/nft-collection', { symbol: 'local_apes' }],
      ['/v1/lending/markets', {}],
    ];
    for (const [path, query] of cases) {
      const e = await serviceFault(call(deadGroup, path, query));
      expect({ path, status: e.status, code: e.code }).toEqual({ path, status: 502, code: 'upstream_unavailable' });
    }
  }, 60_000);
});

/**
 * The market handlers over fixture-serving loopback sources: answers in the contract's shape
 * (checked against RESPONSES), `unknown` for null upstream figures, single-flight (N concurrent
 * identical requests make one upstream call, counted at the server), 404 and 502 mapping with
 * nothing guessed, and the slippage sweep with its curve math run in the real worker pool. The
 * clock is frozen (only Date is faked; timers and I/O run for real), so ages and windows are exact.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createJupiterClient } from '../../../src/market-apis/jupiter-client.ts';
import { createGeckoTerminalClient } from '../../../src/market-apis/geckoterminal-client.ts';
import { createMagicEdenClient } from '../../../src/market-apis/magiceden-client.ts';
import { createLendingClient } from '../../../src/market-apis/lending-client.ts';
import { createQuoteSource } from '../../../src/intel/market/quote-source.ts';
import { createDexQuoteHandler } from '../../../src/intel/market/dex-quote.ts';
import { createSlippageMapHandler } from '../../../src/intel/market/slippage-map.ts';
import { createPoolListHandlers } from '../../../src/intel/market/pool-lists.ts';
import { createNftCollectionHandler } from '../../../src/intel/market/nft-collection.ts';
import { createLendingMarketsHandler } from '../../../src/intel/market/lending-markets.ts';
import { createWorkerPool, type WorkerPool } from '../../../src/pool/worker-pool.ts';
import type { PoolTasks } from '../../../workers/pool-worker.ts';
import { marketFixture, startFixtureUpstream, type FixtureUpstream } from '../../helpers/fixture-upstream.ts';
import { responseErrors } from '../../helpers/check-response.ts';
import { serviceFault } from '../../helpers/test-support.ts';

const WSOL = 'So11111111111111111111111111111111111111112';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const QUOTE = '/swap/v1/quote';
const DOWN = 'http://127.0.0.1:1';
const signal = new AbortController().signal;
/** The frozen "now": an hour after the newest fixture pool was created. */
const NOW = new Date('2026-11-22T03:31:55Z');
const NOW_S = NOW.getTime() / 1000;
let up: FixtureUpstream;
let pool: WorkerPool<PoolTasks>;

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  up = await startFixtureUpstream();
  pool = createWorkerPool({ size: 1 });
});
afterAll(async () => {
  await up.close();
  await pool.close();
  vi.useRealTimers();
});
beforeEach(() => up.reset());

const quotes = (base = up.url) => createQuoteSource(createJupiterClient({ baseUrl: base, timeoutMs: 2000, maxRetries: 0 }));

describe('/v1/dex-quote', () => {
  it('answers contract fields from a real-shaped quote: minReceived from slippageBps, band, route, slot', async () => {
    up.route(QUOTE, { body: marketFixture('jupiter-quote.json') });
    const body = (await createDexQuoteHandler(quotes())({ inputMint: WSOL, outputMint: JUP, amount: '1000000000', slippageBps: 100 }, signal)) as any;
    expect(responseErrors('/v1/dex-quote', body)).toEqual([]);
    expect(body.output).toMatchObject({ amount: '287139474', minReceived: String((287_139_474n * 9_900n) / 10_000n), swapUsdValue: 142.3806543219571 });
    expect(body.priceImpact.band).toBe('minimal');
    expect(body.priceImpact.pct).toBeCloseTo(0.00849133406104, 12);
    expect(body.route).toEqual({ hops: 2, path: [expect.objectContaining({ amm: 'Orca' }), expect.objectContaining({ amm: 'Meteora DLMM' })] });
    expect(body.contextSlot).toBe(352_749_113);
    expect(up.requests[0]!.query.get('slippageBps')).toBe('100');
  });

  it('reports a missing USD value as unknown and a high-impact split route', async () => {
    up.route(QUOTE, { body: marketFixture('jupiter-quote-no-usd.json') });
    const body = (await createDexQuoteHandler(quotes())({ inputMint: WSOL, outputMint: JUP, amount: '5' }, signal)) as any;
    expect(responseErrors('/v1/dex-quote', body)).toEqual([]);
    expect(body.output.swapUsdValue).toBe('unknown');
    expect(body.priceImpact).toMatchObject({ band: 'high' });
    expect(body.slippageBps).toBe(50);
  });

  it('maps no-route to 404, equal mints to 400 before any call, a down source to 502', async () => {
    up.route(QUOTE, { status: 400, body: marketFixture('jupiter-no-route.json') });
    const h = createDexQuoteHandler(quotes());
    expect((await serviceFault(h({ inputMint: WSOL, outputMint: JUP, amount: '1' }, signal))).status).toBe(404);
    expect((await serviceFault(h({ inputMint: WSOL, outputMint: WSOL, amount: '1' }, signal))).status).toBe(400);
    expect((await serviceFault(h({ inputMint: WSOL, outputMint: JUP, amount: '18446744073709551616' }, signal))).status).toBe(400);
    expect(up.requests.length).toBe(1);
    const down = await serviceFault(createDexQuoteHandler(quotes(DOWN))({ inputMint: WSOL, outputMint: JUP, amount: '1' }, signal));
    expect(down).toMatchObject({ code: 'upstream_unavailable', status: 502 });
  });

  it('single-flight: 20 concurrent identical quotes make one upstream call', async () => {
    up.route(QUOTE, { body: marketFixture('jupiter-quote.json'), delayMs: 200 });
    const h = createDexQuoteHandler(quotes());
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => h({ inputMint: WSOL, outputMint: JUP, amount: '1000000000' }, new AbortController().signal)),
    );
    expect(up.requests.length).toBe(1);
    expect(new Set(answers.map((a: any) => a.output.amount))).toEqual(new Set(['287139474']));
  });
});

describe('/v1/slippage-map', () => {
  it('sweeps every size with its own quote, runs the curve in the pool, and keeps a failed size explicit', async () => {
    up.route(QUOTE, { body: marketFixture('jupiter-quote.json') });
    const h = createSlippageMapHandler(quotes(), pool);
    const body = (await h({ inputMint: WSOL, outputMint: JUP, amount: '1000000000', mults: [0.1, 1, 10] }, signal)) as any;
    expect(responseErrors('/v1/slippage-map', body)).toEqual([]);
    expect(body.points.map((p: any) => p.sizeBaseUnits)).toEqual(['100000000', '1000000000', '10000000000']);
    expect(up.requests.map((r) => r.query.get('amount')).sort()).toEqual(['100000000', '1000000000', '10000000000']);
    expect(body.points.every((p: any) => p.band === 'minimal')).toBe(true);
    expect(body.depth.under1pct.sizeBaseUnits).toBe('10000000000');

    up.reset();
    up.route(QUOTE, { status: 400, body: marketFixture('jupiter-no-route.json') }, { body: marketFixture('jupiter-quote.json') });
    const partial = (await h({ inputMint: WSOL, outputMint: JUP, amount: '7', mults: [1, 2, 3] }, signal)) as any;
    expect(responseErrors('/v1/slippage-map', partial)).toEqual([]);
    const failed = partial.points.filter((p: any) => p.error !== undefined);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ band: 'unknown', priceImpactPct: 'unknown', swapUsdValue: 'unknown' });
    expect(failed[0].error).toMatch(/^not_found: .*COULD_NOT_FIND_ANY_ROUTE/);
  });

  it('starts no upstream call for a caller who already went away', async () => {
    up.route(QUOTE, { body: marketFixture('jupiter-quote.json') });
    const gone = new AbortController();
    gone.abort(new Error('client went away'));
    await expect(createSlippageMapHandler(quotes(), pool)({ inputMint: WSOL, outputMint: JUP, amount: '1000' }, gone.signal)).rejects.toThrow(
      'client went away',
    );
    expect(up.requests.length).toBe(0);
  });

  it('answers 400 for a size that rounds to zero, 502 when every size faults', async () => {
    const h = createSlippageMapHandler(quotes(DOWN), pool);
    expect((await serviceFault(h({ inputMint: WSOL, outputMint: JUP, amount: '3', mults: [0.1] }, signal))).details).toMatchObject({ param: 'mults' });
    expect((await serviceFault(h({ inputMint: WSOL, outputMint: JUP, amount: '1000' }, signal))).status).toBe(502);
  });
});

describe('/v1/trending-tokens and /v1/new-pairs', () => {
  it('trims to limit and reports null upstream figures as unknown', async () => {
    up.route('/api/v2/networks/solana/trending_pools', { body: marketFixture('geckoterminal-trending.json') });
    up.route('/api/v2/networks/solana/new_pools', { body: marketFixture('geckoterminal-new.json') });
    const lists = createPoolListHandlers(createGeckoTerminalClient({ baseUrl: up.url }));
    const trending = (await lists.trending({ limit: 2 }, signal)) as any;
    expect(responseErrors('/v1/trending-tokens', trending)).toEqual([]);
    expect(trending.count).toBe(2);
    expect(trending.pools[1]).toMatchObject({
      baseMint: '9nEqaUcb16sQ3Tn1psbkWqyhPdLmfHWjKGymREjsAgTE',
      marketCapUsd: 'unknown',
      fdvUsd: 1843300.12,
      priceChangePct: { h1: -12.7, h6: 188.05, h24: 'unknown' },
      txCount24h: 7571,
    });
    expect(trending.pools.map((p: { poolAgeMinutes: number }) => p.poolAgeMinutes)).toEqual([1_414_762, 290]);
    expect(trending.fetchedAt).toBe(NOW.toISOString());
    expect(((await lists.trending({ limit: 1 }, signal)) as any).count).toBe(1);
    const fresh = (await lists.newPairs({}, signal)) as any;
    expect(responseErrors('/v1/new-pairs', fresh)).toEqual([]);
    expect(fresh.pools[0]).toMatchObject({ createdAt: '2026-11-22T02:31:55Z', priceUsd: 'unknown', fdvUsd: 'unknown' });
    expect(fresh.pools[0].ageMinutes).toBe(60);
    expect(up.requests.length).toBe(2);
  });

  it('single-flight: 10 concurrent calls make one upstream call; a down source is 502', async () => {
    up.route('/api/v2/networks/solana/trending_pools', { body: marketFixture('geckoterminal-trending.json'), delayMs: 150 });
    const lists = createPoolListHandlers(createGeckoTerminalClient({ baseUrl: up.url }));
    await Promise.all(Array.from({ length: 10 }, (_, i) => lists.trending({ limit: 1 + (i % 2) }, new AbortController().signal)));
    expect(up.requests.length).toBe(1);
    const down = createPoolListHandlers(createGeckoTerminalClient({ baseUrl: DOWN, maxRetries: 0 }));
    expect((await serviceFault(down.newPairs({}, signal))).status).toBe(502);
  });
});

describe('/v1/nft-collection', () => {
  it('answers floor in SOL and lamports, 24 h average and 7-day volume from activities', async () => {
    up.route('/v2/collections/mad_lads/stats', { body: marketFixture('magiceden-stats.json') });
    up.route('/v2/collections/mad_lads/activities', {
      body: [
        { type: 'buyNow', blockTime: NOW_S - 60, price: 41.5 },
        { type: 'list', blockTime: NOW_S - 120, price: 44 },
        { type: 'buyNow', blockTime: NOW_S - 6 * 86_400, price: 40 },
        { type: 'buyNow', blockTime: NOW_S - 8 * 86_400, price: 39 },
      ],
    });
    const body = (await createNftCollectionHandler(createMagicEdenClient({ baseUrl: up.url }))({ symbol: 'mad_lads' }, signal)) as any;
    expect(responseErrors('/v1/nft-collection', body)).toEqual([]);
    expect(body).toMatchObject({
      symbol: 'mad_lads',
      floorPriceSol: 41.5,
      floorPriceLamports: 41_500_000_000,
      listedCount: 387,
      volume7dSol: 81.5,
      sales7d: 2,
    });
    expect(body.avgPrice24hrSol).toBeCloseTo(42.193333333, 8);
    expect(body.volumeWindow).toEqual({ from: '2026-11-15T03:31:55.000Z', seconds: 7 * 86_400 });
  });

  it('404 for an unknown symbol; nothing listed gives a null floor; failed activities give unknown volume with the error', async () => {
    const h = createNftCollectionHandler(createMagicEdenClient({ baseUrl: up.url, maxRetries: 0 }));
    up.route('/v2/collections/nope/stats', { status: 404, body: { msg: 'Collection not found' } });
    expect((await serviceFault(h({ symbol: 'nope' }, signal))).code).toBe('not_found');
    up.route('/v2/collections/quiet_club/stats', { body: marketFixture('magiceden-stats-unlisted.json') });
    up.route('/v2/collections/quiet_club/activities', { status: 500, text: 'boom' });
    const body = (await h({ symbol: 'quiet_club' }, signal)) as any;
    expect(responseErrors('/v1/nft-collection', body)).toEqual([]);
    expect(body).toMatchObject({ floorPriceSol: null, floorPriceLamports: null, listedCount: 0, avgPrice24hrSol: null, volume7dSol: 'unknown' });
    expect(body.error).toMatch(/upstream_unavailable/);
    up.route('/v2/collections/odd/stats', { body: { symbol: 'odd', listedCount: 3 } });
    up.route('/v2/collections/odd/activities', { body: [] });
    const odd = (await h({ symbol: 'odd' }, signal)) as any;
    expect(responseErrors('/v1/nft-collection', odd)).toEqual([]);
    expect(odd).toMatchObject({ floorPriceSol: 'unknown', floorPriceLamports: 'unknown', listedCount: 3, volume7dSol: 0 });
  });

  it('single-flight per symbol; a down source is 502', async () => {
    up.route('/v2/collections/mad_lads/stats', { body: marketFixture('magiceden-stats.json'), delayMs: 150 });
    up.route('/v2/collections/mad_lads/activities', { body: [], delayMs: 150 });
    const h = createNftCollectionHandler(createMagicEdenClient({ baseUrl: up.url }));
    await Promise.all(Array.from({ length: 10 }, () => h({ symbol: 'mad_lads' }, new AbortController().signal)));
    expect(up.requests.length).toBe(2);
    const down = createNftCollectionHandler(createMagicEdenClient({ baseUrl: DOWN, maxRetries: 0 }));
    expect((await serviceFault(down({ symbol: 'mad_lads' }, signal))).status).toBe(502);
  });
});

describe('/v1/lending/markets', () => {
  const MAIN = '7u3HeHxYDLhnCoErrtycNokbQYbWGzLs6JSDqGAv5PfF';
  const JLP = 'DxXdAyU3kCjnyggvHmY5nAwg5cRbbmdyX3npfDMjjMek';

  it('computes TVL as supply minus borrows, largest first; a market whose metrics failed is unknown with its error', async () => {
    up.route('/v2/kamino-market', { body: marketFixture('kamino-markets.json') });
    up.route(`/kamino-market/${MAIN}/reserves/metrics`, { body: marketFixture('kamino-reserves.json') });
    up.route(`/kamino-market/${JLP}/reserves/metrics`, { status: 503, text: 'down' });
    const h = createLendingMarketsHandler(createLendingClient({ baseUrl: up.url, maxRetries: 0 }));
    const body = (await h({}, signal)) as any;
    expect(responseErrors('/v1/lending/markets', body)).toEqual([]);
    expect(body.markets[0]).toMatchObject({ name: 'Main Market', address: MAIN, reserves: 2 });
    expect(body.markets[0].tvlUsd).toBeCloseTo(301202834.81 - 245066459.39 + (377311491.9 - 299156598.1), 4);
    expect(body.markets[1]).toMatchObject({ name: 'JLP Market', tvlUsd: 'unknown' });
    expect(body.markets[1].error).toMatch(/upstream_unavailable/);
    expect(((await h({ limit: 1 }, signal)) as any).markets).toHaveLength(1);
  });

  it('single-flight over the whole listing; a down source is 502', async () => {
    up.route('/v2/kamino-market', { body: marketFixture('kamino-markets.json'), delayMs: 100 });
    up.route(`/kamino-market/${MAIN}/reserves/metrics`, { body: marketFixture('kamino-reserves.json') });
    up.route(`/kamino-market/${JLP}/reserves/metrics`, { body: marketFixture('kamino-reserves.json') });
    const h = createLendingMarketsHandler(createLendingClient({ baseUrl: up.url }));
    await Promise.all(Array.from({ length: 10 }, () => h({ limit: 5 }, new AbortController().signal)));
    expect(up.requests.length).toBe(3);
    const down = createLendingMarketsHandler(createLendingClient({ baseUrl: DOWN, maxRetries: 0 }));
    expect((await serviceFault(down({}, signal))).status).toBe(502);
  });
});

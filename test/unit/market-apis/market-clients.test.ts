/**
 * Contract tests of the market-source clients against response bodies in the real services'
 * documented shapes (test/fixtures/market), served by a loopback server: parsing (null and absent
 * fields), headers the services document (API keys, GeckoTerminal's version pin), refusals as
 * data, 429 then success, Retry-After beyond the cap, 5xx exhaustion, timeout, malformed bodies.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMarketHttp } from '../../../src/market-apis/market-http.ts';
import { createJupiterClient } from '../../../src/market-apis/jupiter-client.ts';
import { createGeckoTerminalClient, GECKOTERMINAL_ACCEPT } from '../../../src/market-apis/geckoterminal-client.ts';
import { createMagicEdenClient, ACTIVITIES_PAGE_LIMIT } from '../../../src/market-apis/magiceden-client.ts';
import { createLendingClient } from '../../../src/market-apis/lending-client.ts';
import { marketFixture, startFixtureUpstream, type FixtureUpstream } from '../../helpers/fixture-upstream.ts';
import { serviceFault } from '../../helpers/test-support.ts';

const WSOL = 'So11111111111111111111111111111111111111112';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const QUOTE = '/swap/v1/quote';
let up: FixtureUpstream;

beforeAll(async () => {
  up = await startFixtureUpstream();
});
afterAll(async () => {
  await up.close();
});
beforeEach(() => up.reset());

const jupiter = (apiKey: string | null = null) => createJupiterClient({ baseUrl: up.url, apiKey, timeoutMs: 1000 });
const req = { inputMint: WSOL, outputMint: JUP, amount: 1_000_000_000n, slippageBps: 50 };

/**
 * Settles `p` while a fake clock (vi.useFakeTimers) moves in small steps, letting real I/O run
 * between steps: waits on the fake clock pass without the test sleeping.
 */
async function settleOnFakeClock<T>(p: Promise<T>): Promise<T> {
  let settled = false;
  p.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let step = 0; step < 10_000 && !settled; step++) {
    await new Promise((r) => setImmediate(r));
    await vi.advanceTimersByTimeAsync(10);
  }
  return p;
}

describe('Jupiter quote client', () => {
  it('parses a two-hop quote and sends the documented query and x-api-key', async () => {
    up.route(QUOTE, { body: marketFixture('jupiter-quote.json') });
    const r = await jupiter('k-123').quote(req);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.quote).toMatchObject({
      inAmount: 1_000_000_000n,
      outAmount: 287_139_474n,
      otherAmountThreshold: 285_703_777n,
      contextSlot: 352_749_113,
      swapUsdValue: 142.3806543219571,
    });
    expect(r.quote.priceImpactFraction).toBeCloseTo(0.0000849133406104, 16);
    expect(r.quote.routePlan.map((l) => l.amm)).toEqual(['Orca', 'Meteora DLMM']);
    const seen = up.requests[0]!;
    expect(seen.headers['x-api-key']).toBe('k-123');
    expect(Object.fromEntries(seen.query)).toEqual({ inputMint: WSOL, outputMint: JUP, amount: '1000000000', slippageBps: '50', swapMode: 'ExactIn' });
  });

  it('reads a split route without swapUsdValue as null, and sends no key when none is configured', async () => {
    up.route(QUOTE, { body: marketFixture('jupiter-quote-no-usd.json') });
    const r = await jupiter().quote(req);
    expect(r.ok && r.quote.swapUsdValue).toBeNull();
    expect(r.ok && r.quote.routePlan.map((l) => l.percent)).toEqual([60, 40]);
    expect(up.requests[0]!.headers['x-api-key']).toBeUndefined();
  });

  it('returns route refusals as data', async () => {
    up.route(QUOTE, { status: 400, body: marketFixture('jupiter-no-route.json') });
    expect(await jupiter().quote(req)).toEqual({ ok: false, errorCode: 'COULD_NOT_FIND_ANY_ROUTE', message: 'Could not find any route' });
    up.route(QUOTE, { status: 400, body: marketFixture('jupiter-not-tradable.json') });
    expect(await jupiter().quote(req)).toMatchObject({ ok: false, errorCode: 'TOKEN_NOT_TRADABLE' });
  });

  it('waits out a 429 for its Retry-After before asking again, then succeeds', async () => {
    up.route(QUOTE, { status: 429, body: { error: 'Too many requests' }, headers: { 'retry-after': '2' } }, { body: marketFixture('jupiter-quote.json') });
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    try {
      const r = await settleOnFakeClock(jupiter().quote(req));
      expect(r.ok).toBe(true);
      const [first, retry] = up.requests;
      expect(up.requests.length).toBe(2);
      // Measured on the fake clock: the default backoff (200 ms) would ask again far sooner.
      expect(retry!.atMs - first!.atMs).toBeGreaterThanOrEqual(2_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails at once with 502 when Retry-After exceeds what one paid call can wait', async () => {
    up.route(QUOTE, { status: 429, headers: { 'retry-after': '60' } });
    const e = await serviceFault(jupiter().quote(req));
    expect(e.code).toBe('upstream_unavailable');
    expect(e.details).toMatchObject({ source: 'jupiter', upstreamStatus: 429, retryAfterSeconds: 60 });
    expect(up.requests.length).toBe(1);
  });

  it('retries 5xx a bounded number of times, then 502', async () => {
    up.route(QUOTE, { status: 503, text: 'upstream connect error' });
    const e = await serviceFault(jupiter().quote(req));
    expect(e.code).toBe('upstream_unavailable');
    expect(e.status).toBe(502);
    expect(up.requests.length).toBe(3);
  });

  it('recovers when a 5xx is followed by a good answer', async () => {
    up.route(QUOTE, { status: 502, text: 'bad gateway' }, { body: marketFixture('jupiter-quote.json') });
    expect((await jupiter().quote(req)).ok).toBe(true);
    expect(up.requests.length).toBe(2);
  });

  it('times out with upstream_timeout', async () => {
    up.route(QUOTE, { hang: true });
    const client = createJupiterClient({ baseUrl: up.url, timeoutMs: 150, maxRetries: 1 });
    const e = await serviceFault(client.quote(req));
    expect(e.code).toBe('upstream_timeout');
    expect(up.requests.length).toBe(2);
  });

  it('treats an unreadable 200 as the source being unavailable', async () => {
    up.route(QUOTE, { text: '<html>maintenance</html>' });
    expect((await serviceFault(jupiter().quote(req))).code).toBe('upstream_unavailable');
    up.route(QUOTE, { body: { outAmount: 'lots' } });
    expect((await serviceFault(jupiter().quote(req))).code).toBe('upstream_unavailable');
  });

  it('reports an unreachable source as upstream_unavailable', async () => {
    const http = createMarketHttp({ source: 'jupiter', baseUrl: 'http://127.0.0.1:1', maxRetries: 0, timeoutMs: 1000 });
    const e = await serviceFault(createJupiterClient({ baseUrl: 'unused' }, http).quote(req));
    expect(e.code).toBe('upstream_unavailable');
  });
});

describe('GeckoTerminal pools client', () => {
  it('parses trending pools with null market cap and null price change, pinning the API version', async () => {
    up.route('/api/v2/networks/solana/trending_pools', { body: marketFixture('geckoterminal-trending.json') });
    const pools = await createGeckoTerminalClient({ baseUrl: up.url }).pools('trending_pools');
    expect(up.requests[0]!.headers.accept).toBe(GECKOTERMINAL_ACCEPT);
    expect(up.requests[0]!.query.get('include')).toBe('base_token');
    expect(pools).toHaveLength(2);
    expect(pools[0]).toMatchObject({
      name: 'SOL / USDC 0.04%',
      baseMint: WSOL,
      baseSymbol: 'SOL',
      dex: 'orca',
      marketCapUsd: 77045130285.3413,
      reserveUsd: 32107445.9823,
      createdAt: '2024-03-14T16:09:34Z',
    });
    expect(pools[0]!.transactions.h24).toEqual({ buys: 118233, sells: 116972 });
    expect(pools[1]).toMatchObject({ baseSymbol: 'NEWCAT', marketCapUsd: null, fdvUsd: 1843300.12 });
    expect(pools[1]!.priceChangePct).toEqual({ m5: -3.41, h1: -12.7, h6: 188.05, h24: null });
  });

  it('parses new pools with null prices and no included tokens', async () => {
    up.route('/api/v2/networks/solana/new_pools', { body: marketFixture('geckoterminal-new.json') });
    const [p] = await createGeckoTerminalClient({ baseUrl: up.url }).pools('new_pools');
    expect(p).toMatchObject({
      baseTokenPriceUsd: null,
      fdvUsd: null,
      baseSymbol: null,
      baseMint: 'BNq4yZ4oU5h9TYeZWCmqPnBtMLRRbJ2QrGxRmR6CkS1k',
      volumeUsd: { h24: 0 },
    });
  });

  it('refuses a body that is not a JSON:API list', async () => {
    up.route('/api/v2/networks/solana/new_pools', { body: { errors: [{ status: '404', title: 'Not Found' }] } });
    expect((await serviceFault(createGeckoTerminalClient({ baseUrl: up.url }).pools('new_pools'))).code).toBe('upstream_unavailable');
  });
});

describe('Magic Eden client', () => {
  const me = (apiKey: string | null = null) => createMagicEdenClient({ baseUrl: up.url, apiKey });

  it('parses stats in lamports and sends the bearer key', async () => {
    up.route('/v2/collections/mad_lads/stats', { body: marketFixture('magiceden-stats.json') });
    expect(await me('me-key').stats('mad_lads')).toEqual({
      symbol: 'mad_lads',
      floorPriceLamports: 41_500_000_000,
      listedCount: 387,
      avgPrice24hrLamports: 42193333333.333336,
      volumeAllLamports: 1187954830091472,
    });
    expect(up.requests[0]!.headers.authorization).toBe('Bearer me-key');
  });

  it('reads an unlisted collection (no floorPrice, no avgPrice24hr) and unknown symbols (404 or {})', async () => {
    up.route('/v2/collections/quiet_club/stats', { body: marketFixture('magiceden-stats-unlisted.json') });
    expect(await me().stats('quiet_club')).toMatchObject({ floorPriceLamports: null, listedCount: 0, avgPrice24hrLamports: null });
    up.route('/v2/collections/nope/stats', { status: 404, body: { msg: 'Collection not found' } });
    expect(await me().stats('nope')).toBeNull();
    up.route('/v2/collections/empty/stats', { body: {} });
    expect(await me().stats('empty')).toBeNull();
  });

  it('sums 7-day sales from activities, skipping listings and older sales', async () => {
    up.route('/v2/collections/mad_lads/activities', { body: marketFixture('magiceden-activities.json') });
    const sum = await me().salesSince('mad_lads', 1_795_100_000);
    expect(sum).toEqual({ complete: true, count: 2, lamports: 41_500_000_000 + 42_250_000_000 });
    expect(Object.fromEntries(up.requests[0]!.query)).toEqual({ offset: '0', limit: String(ACTIVITIES_PAGE_LIMIT) });
  });

  it('pages until it passes the cutoff', async () => {
    const full = Array.from({ length: ACTIVITIES_PAGE_LIMIT }, (_, i) => ({ type: 'buyNow', blockTime: 2_000_000 - i, price: 1 }));
    up.route(
      '/v2/collections/busy/activities',
      { body: full },
      {
        body: [
          { type: 'buyNow', blockTime: 1_500_000, price: 2 },
          { type: 'buyNow', blockTime: 10, price: 100 },
        ],
      },
    );
    expect(await me().salesSince('busy', 1_000_000)).toEqual({
      complete: true,
      count: ACTIVITIES_PAGE_LIMIT + 1,
      lamports: (ACTIVITIES_PAGE_LIMIT + 2) * 1_000_000_000,
    });
    expect(up.requests.map((r) => r.query.get('offset'))).toEqual(['0', String(ACTIVITIES_PAGE_LIMIT)]);
  });
});

describe('Kamino lending client', () => {
  it('parses markets and reserve metrics (decimal strings) with env=mainnet-beta', async () => {
    up.route('/v2/kamino-market', { body: marketFixture('kamino-markets.json') });
    up.route('/kamino-market/7u3HeHxYDLhnCoErrtycNokbQYbWGzLs6JSDqGAv5PfF/reserves/metrics', { body: marketFixture('kamino-reserves.json') });
    const client = createLendingClient({ baseUrl: up.url });
    const markets = await client.markets();
    expect(markets).toEqual([
      { address: '7u3HeHxYDLhnCoErrtycNokbQYbWGzLs6JSDqGAv5PfF', name: 'Main Market', isPrimary: true },
      { address: 'DxXdAyU3kCjnyggvHmY5nAwg5cRbbmdyX3npfDMjjMek', name: 'JLP Market', isPrimary: false },
    ]);
    const reserves = await client.reserves(markets[0]!.address);
    expect(reserves.map((r) => [r.symbol, r.totalSupplyUsd, r.totalBorrowUsd])).toEqual([
      ['USDC', 301202834.81, 245066459.39],
      ['SOL', 377311491.9, 299156598.1],
    ]);
    expect(up.requests[1]!.query.get('env')).toBe('mainnet-beta');
  });

  it('refuses reserves without USD figures', async () => {
    up.route('/kamino-market/x/reserves/metrics', { body: [{ reserve: 'r', totalSupply: '1' }] });
    expect((await serviceFault(createLendingClient({ baseUrl: up.url }).reserves('x'))).code).toBe('upstream_unavailable');
  });
});

/**
 * Market-source configuration: defaults name the public services the clients speak (Kamino Lend
 * for lending, whose shape the localnet stand-in serves), API keys and the timeout parse, and the
 * market group sends each key as the header its service documents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createMarketGroup } from '../../../src/intel/market/market-group.ts';
import type { HandlerDeps } from '../../../src/intel/handler-group.ts';
import { marketFixture, startFixtureUpstream, type FixtureUpstream } from '../../helpers/fixture-upstream.ts';

let up: FixtureUpstream;
beforeAll(async () => {
  up = await startFixtureUpstream();
});
afterAll(async () => {
  await up.close();
});

describe('market configuration', () => {
  it('defaults point at the public services', () => {
    const c = loadConfig({}, []);
    expect([c.jupiterUrl, c.geckoterminalUrl, c.magicedenUrl, c.lendingUrl]).toEqual([
      'https://api.jup.ag',
      'https://api.geckoterminal.com',
      'https://api-mainnet.magiceden.dev',
      'https://api.kamino.finance',
    ]);
    expect([c.jupiterApiKey, c.magicedenApiKey, c.marketTimeoutMs]).toEqual([null, null, 5000]);
  });

  it('keys and timeout come from flags or env; a bad timeout is refused', () => {
    const c = loadConfig({ MAGICEDEN_API_KEY: 'me' }, ['--jupiter-api-key', 'jk', '--market-timeout-ms', '1500']);
    expect([c.jupiterApiKey, c.magicedenApiKey, c.marketTimeoutMs]).toEqual(['jk', 'me', 1500]);
    expect(() => loadConfig({}, ['--market-timeout-ms', '0'])).toThrow(/market-timeout-ms/);
  });

  it('the group sends x-api-key to Jupiter and a bearer key to Magic Eden', async () => {
    const config = loadConfig({}, ['--jupiter-api-key', 'jk', '--magiceden-api-key', 'me']);
    up.route('/swap/v1/quote', { body: marketFixture('jupiter-quote.json') });
    up.route('/v2/collections/mad_lads/stats', { body: marketFixture('magiceden-stats.json') });
    up.route('/v2/collections/mad_lads/activities', { body: [] });
    const market = { jupiter: up.url, geckoterminal: up.url, magiceden: up.url, lending: up.url };
    const group = createMarketGroup({ settings: config, market } as unknown as HandlerDeps);
    const signal = new AbortController().signal;
    await group.handlers['/v1/dex-quote']!(
      { inputMint: 'So11111111111111111111111111111111111111112', outputMint: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', amount: '1' },
      signal,
    );
    await group.handlers['/v1/nft-collection']!({ symbol: 'mad_lads' }, signal);
    const byPath = new Map(up.requests.map((r) => [r.path, r.headers]));
    expect(byPath.get('/swap/v1/quote')!['x-api-key']).toBe('jk');
    expect(byPath.get('/v2/collections/mad_lads/stats')!.authorization).toBe('Bearer me');
    expect(byPath.get('/v2/collections/mad_lads/activities')!.authorization).toBe('Bearer me');
  });
});

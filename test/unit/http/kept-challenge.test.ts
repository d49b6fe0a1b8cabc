/**
 * The unpaid paths through the front end keep what they can (a route's resource URL per query, a
 * kept 402's encoded bytes, a query's 400): none of it may outlive the terms it was made for. A
 * 402 carries the blockhash current when it is answered, over the wire, with the CORS headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/catalog/endpoints.ts';
import { SOLANA_USDC_MINT } from '../../../src/config.ts';
import { createPaidRoutes } from '../../../src/http/routes/paid-routes.ts';
import { CORS_HEADERS } from '../../../src/http/server/route-table.ts';
import { createHttpServer, type HttpServer } from '../../../src/http/server/server.ts';
import { createChallengeBuilder } from '../../../src/x402/delivery/payment-terms.ts';
import { MAINNET_TERMS } from '../../helpers/test-terms.ts';

const TERMS = MAINNET_TERMS;
const ENTRY = CATALOG.find((e) => e.path === '/v1/smri')!;

interface Challenge {
  readonly resource: { readonly url: string };
  readonly accepts: ReadonlyArray<{ readonly extra: Record<string, unknown> }>;
}

describe('kept unpaid answers over the wire', () => {
  let server: HttpServer;
  let base = '';
  // Live terms as the service hands them out: one object per blockhash, a new one when it changes.
  let live: { readonly recentBlockhash: string } = { recentBlockhash: '1'.repeat(44) };
  beforeAll(async () => {
    const builder = createChallengeBuilder(ENTRY, TERMS, { svmExtra: () => live });
    server = createHttpServer({
      routes: createPaidRoutes({ challenges: new Map([[ENTRY.path, builder]]), handlers: {}, processor: null, baseUrl: () => base }),
    });
    base = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
  });
  afterAll(() => server.close());

  const challengeAt = async (query: string): Promise<{ status: number; challenge: Challenge; cors: string | null }> => {
    const res = await fetch(`${base}${ENTRY.path}?${query}`);
    const body = await res.text();
    const header = res.headers.get('payment-required');
    if (header === null) throw new Error(`${res.status} ${body}`);
    return {
      status: res.status,
      challenge: JSON.parse(Buffer.from(header, 'base64').toString()) as Challenge,
      cors: res.headers.get('access-control-allow-origin'),
    };
  };

  it('answers each 402 with the blockhash of the moment, and its own URL, while kept', async () => {
    const query = `mint=${SOLANA_USDC_MINT}`;
    for (const hash of ['1', '1', '2', '2', '3']) {
      if (live.recentBlockhash[0] !== hash) live = { recentBlockhash: hash.repeat(44) };
      const { status, challenge, cors } = await challengeAt(query);
      expect(status).toBe(402);
      expect(cors).toBe(CORS_HEADERS['Access-Control-Allow-Origin']);
      expect(challenge.accepts[0]!.extra.recentBlockhash).toBe(hash.repeat(44));
      expect(challenge.resource.url).toBe(`${base}${ENTRY.path}?${query}`);
    }
    const otherQuery = 'mint=So11111111111111111111111111111111111111112';
    const other = await challengeAt(otherQuery);
    expect(other.challenge.resource.url).toBe(`${base}${ENTRY.path}?${otherQuery}`);
    expect(other.challenge.accepts[0]!.extra.recentBlockhash).toBe('3'.repeat(44));
  });

  it('answers a bad query 400 with the same error body every time', async () => {
    const bodies: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${base}${ENTRY.path}?mint=bad`);
      expect(res.status).toBe(400);
      expect(res.headers.get('access-control-expose-headers')).toBe(CORS_HEADERS['Access-Control-Expose-Headers']);
      bodies.push(await res.text());
    }
    expect(JSON.parse(bodies[0]!)).toMatchObject({ error: 'invalid_parameter' });
    expect(new Set(bodies).size).toBe(1);
  });
});

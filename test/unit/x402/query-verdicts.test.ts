/**
 * The paid caller keeps each route's verdict on a query string: a repeated bad query gets the very
 * same 400, a verdict never crosses routes, a long query is judged afresh, and a paid call still
 * gets its own parsed query (the kept verdict is only "valid or not").
 */
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/catalog/endpoints.ts';
import { createPaidRoutes } from '../../../src/http/routes/paid-routes.ts';
import { MAX_KEPT_VERDICTS } from '../../../src/x402/flow/paid-caller.ts';
import { createChallengeBuilder } from '../../../src/x402/delivery/payment-terms.ts';

const TERMS = {
  svm: { payTo: '11111111111111111111111111111111', asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', feePayer: '11111111111111111111111111111111' },
  evm: { payTo: `0x${'11'.repeat(20)}`, asset: `0x${'22'.repeat(20)}`, name: 'USD Coin', version: '2' },
};
const challenges = new Map(CATALOG.map((e) => [e.path, createChallengeBuilder(e, TERMS)]));
const routes = createPaidRoutes({ baseUrl: () => 'http://x', challenges, handlers: {}, processor: null });
const route = (path: string) => routes.find((r) => r.path === path)!;
const request = (path: string, query: string, headers: Record<string, string> = {}) => ({
  method: 'GET',
  path,
  query,
  headers,
  remoteIp: '127.0.0.1',
  body: null,
  signal: new AbortController().signal,
});
const call = async (path: string, query: string, headers?: Record<string, string>) => route(path).handler(request(path, query, headers));
const errorOf = (body: unknown) => JSON.parse(String(body)) as { error: string; message: string };

describe('kept query verdicts', () => {
  it('answer a repeated bad query with the same 400, per route', async () => {
    const first = await call('/v1/smri', 'mint=bad');
    expect(first.status).toBe(400);
    expect(errorOf(first.body).error).toBe('invalid_parameter');
    expect(await call('/v1/smri', 'mint=bad')).toBe(first);
    const other = await call('/v1/epoch', 'mint=bad');
    expect(other.status).toBe(400);
    expect(errorOf(other.body).error).toBe('unknown_parameter');
    expect((await call('/v1/epoch', '')).status).toBe(402);
  });

  it('judge every query exactly, past the bound and past the length kept', async () => {
    for (let i = 0; i < MAX_KEPT_VERDICTS + 10; i++) {
      const bad = await call('/v1/epoch', `rate=x${i}`);
      expect(bad.status).toBe(400);
      expect(errorOf(bad.body).message).toContain(`x${i}`);
    }
    expect(errorOf((await call('/v1/epoch', 'rate=x0')).body).message).toContain('x0');
    const long = `rate=${'y'.repeat(400)}`;
    expect((await call('/v1/epoch', long)).status).toBe(400);
    expect(await call('/v1/epoch', long)).not.toBe(await call('/v1/epoch', long));
  });

  it('still refuse a paid call whose query is bad, before its payment is looked at', async () => {
    await call('/v1/epoch', 'rate=both');
    const paidBad = await call('/v1/epoch', 'rate=sometimes', { 'payment-signature': 'not base64 at all' });
    expect(paidBad.status).toBe(400);
    // A valid query with a payment goes on to the payment: here malformed, so a 402 naming why.
    const paid = await call('/v1/epoch', 'rate=both', { 'payment-signature': 'not base64 at all' });
    expect(paid.status).toBe(402);
    expect(errorOf(paid.body).error).toMatch(/^invalid_payload/);
  });
});

import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { createChallengeBuilder } from '../../src/x402/delivery/payment-terms.ts';
import { createPaidRoutes } from '../../src/http/routes/paid-routes.ts';
import { paidCallsStopped } from '../../src/service/trust-stack.ts';

const on = { isActive: () => true };
const off = { isActive: () => false };
const writable = { failure: () => null };
const broken = { failure: () => 'fsync failed: EIO' };

describe('paid calls stop before payment', () => {
  it('while the kill switch is on or the ledger cannot write, and only then', () => {
    expect(paidCallsStopped(off, writable)).toBeNull();
    expect(paidCallsStopped(on, writable)).toMatch(/operator/);
    expect(paidCallsStopped(off, broken)).toMatch(/ledger cannot record entries \(fsync failed: EIO\)/);
  });

  it('answers 503 service_stopped with the reason, after validation and before any challenge', async () => {
    const terms = {
      svm: { payTo: '11111111111111111111111111111111', asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', feePayer: '11111111111111111111111111111111' },
      evm: { payTo: `0x${'11'.repeat(20)}`, asset: `0x${'22'.repeat(20)}`, name: 'USD Coin', version: '2' },
    };
    const challenges = new Map(CATALOG.map((e) => [e.path, createChallengeBuilder(e, terms)]));
    let reason: string | null = 'the ledger cannot record entries';
    const routes = createPaidRoutes({ baseUrl: () => 'http://x', challenges, handlers: {}, processor: null, stopped: () => reason });
    const route = routes.find((r) => r.path === '/v1/epoch')!;
    const request = (query: string) => ({
      method: 'GET',
      path: '/v1/epoch',
      query,
      headers: {},
      remoteIp: '127.0.0.1',
      body: null,
      signal: new AbortController().signal,
    });
    const stopped = await route.handler(request('rate=both'));
    expect(stopped.status).toBe(503);
    expect(JSON.parse(String(stopped.body))).toEqual({ error: 'service_stopped', message: reason });
    expect((await route.handler(request('rate=sometimes'))).status).toBe(400);
    reason = null;
    expect((await route.handler(request('rate=both'))).status).toBe(402);
  });
});

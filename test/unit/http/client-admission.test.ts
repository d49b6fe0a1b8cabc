/** The per-client admission rule, the buckets' counted takes and refunds, the memory of refused payments, and MCP call counting. */
import { describe, expect, it } from 'vitest';
import { createClientAdmission } from '../../../src/http/admission/client-admission.ts';
import { countCalls } from '../../../src/http/routes/mcp-route.ts';
import { createRateLimiter } from '../../../src/http/admission/rate-limiter.ts';
import { createFailedPayments } from '../../../src/x402/stores/failed-payments.ts';
import { manualClock } from '../../helpers/manual-clock.ts';

const clock = manualClock;

describe('rate limiter: counted takes and refunds', () => {
  it('takes several tokens at once, all or none', () => {
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 5, now: clock().now });
    expect(limiter.take('a', 3).ok).toBe(true);
    expect(limiter.take('a', 3)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(limiter.take('a', 2).ok).toBe(true);
    expect(limiter.has('a')).toBe(false);
  });

  it('admits more than the burst on a full bucket and makes the client wait for what it owes', () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 2, burst: 4, now: c.now });
    expect(limiter.take('a', 10).ok).toBe(true);
    // -6 tokens: one more needs 7 at two a second.
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 4 });
    c.advance(3_500);
    expect(limiter.take('a').ok).toBe(true);
  });

  it('gives tokens back up to the burst, and only to a tracked client', () => {
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 2, now: clock().now });
    limiter.take('a');
    limiter.take('a');
    limiter.refund('a');
    limiter.refund('a');
    limiter.refund('a');
    expect([limiter.take('a').ok, limiter.take('a').ok, limiter.take('a').ok]).toEqual([true, true, false]);
    limiter.refund('b');
    expect(limiter.size()).toBe(1);
    expect(limiter.has('b')).toBe(true);
  });
});

const PAID = '/v1/epoch';
function admission(free = 2, failed = 2) {
  const c = clock();
  const a = createClientAdmission({
    free: { ratePerSecond: 1, burst: free },
    failed: { ratePerSecond: 1, burst: failed },
    paidPaths: new Set([PAID]),
    callsPath: '/mcp',
    now: c.now,
  });
  return { a, c };
}
const req = (path: string, headers: Record<string, string> = {}, remoteIp = '198.51.100.1', method = 'GET') => ({ method, remoteIp, headers, path });

describe('client admission', () => {
  it('unpaid requests take a free token; 429 rate_limited with Retry-After beyond; IPv6 /64 is one client', () => {
    const { a } = admission(1);
    expect(a.door(req('/health', {}, '2001:db8:1:2::1'))).toBeNull();
    const refused = a.door(req('/health', {}, '2001:db8:1:2::ffff'));
    expect(refused?.status).toBe(429);
    expect(refused?.headers?.['Retry-After']).toBe('1');
    expect(JSON.parse(String(refused?.body))).toMatchObject({ error: 'rate_limited', retryAfterSeconds: 1 });
  });

  it('a payment header defers only on a paid route; on any other path it is counted', () => {
    const { a } = admission(1);
    expect(a.door(req('/health', { 'payment-signature': 'x' }))).toBeNull();
    expect(a.door(req('/health', { 'x-payment': 'x' }))?.status).toBe(429);
    for (let i = 0; i < 5; i++) expect(a.door(req(PAID, { 'payment-signature': 'x' }))).toBeNull();
    // A HEAD is never paid: its payment header buys nothing, it is counted.
    expect(a.door(req(PAID, { 'payment-signature': 'x' }, '198.51.100.1', 'HEAD'))?.status).toBe(429);
  });

  it('a payment that does not match takes the free token after all', () => {
    const { a } = admission(1);
    expect(a.paid.unmatched('198.51.100.1')).toBeNull();
    expect(a.paid.unmatched('198.51.100.1')?.status).toBe(429);
    expect(a.door(req(PAID))?.status).toBe(429);
  });

  it('a matching payment holds a failed-payment token while checked: given back unless refused', () => {
    const { a } = admission(1, 2);
    const me = '198.51.100.1';
    expect(a.paid.matched(me)).toBeNull();
    expect(a.paid.matched(me)).toBeNull();
    expect(a.paid.matched(me)?.status).toBe(429); // two in checking at once: the burst
    a.paid.ended(me, 'paid');
    a.paid.ended(me, 'neutral');
    expect(a.paid.matched(me)).toBeNull();
    a.paid.ended(me, 'failed');
    expect(a.paid.matched(me)).toBeNull();
    a.paid.ended(me, 'failed');
    const refused = a.paid.matched(me);
    expect(refused?.status).toBe(429);
    expect(JSON.parse(String(refused?.body)).message).toMatch(/refused payments/);
  });

  it('a paid call gives back the token its 402 took; refused payments give nothing back', () => {
    const { a } = admission(2);
    const me = '198.51.100.1';
    for (let i = 0; i < 10; i++) {
      expect(a.door(req(PAID, {}, me))).toBeNull(); // the 402
      expect(a.paid.matched(me)).toBeNull();
      a.paid.ended(me, 'paid');
    }
    // Paying never banks more than the burst.
    expect([a.door(req('/health')), a.door(req('/health')), a.door(req('/health'))].map((r) => r?.status ?? 200)).toEqual([200, 200, 429]);
    const other = '198.51.100.2';
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push(a.door(req(PAID, {}, other))?.status ?? 402);
      a.paid.matched(other);
      a.paid.ended(other, 'failed');
    }
    expect(seen).toEqual([402, 402, 429]);
  });

  it('MCP: the door only checks a token is left; the calls are counted once the body is read', () => {
    const { a } = admission(3);
    const me = '198.51.100.1';
    expect(a.door(req('/mcp', {}, me))).toBeNull();
    expect(a.calls(me, 2)).toBeNull();
    expect(a.calls(me, 2)?.status).toBe(429);
    expect(a.calls(me, 0)).toBeNull();
    expect(a.calls(me, 1)).toBeNull();
    expect(a.door(req('/mcp', {}, me))?.status).toBe(429);
  });

  it('free rate 0: everything is admitted, the failed-payment limit included', () => {
    const a = createClientAdmission({
      free: { ratePerSecond: 0, burst: 1 },
      failed: { ratePerSecond: 1, burst: 1 },
      paidPaths: new Set([PAID]),
      callsPath: '/mcp',
    });
    for (let i = 0; i < 5; i++) {
      expect(a.door(req('/health'))).toBeNull();
      expect(a.paid.matched('x')).toBeNull();
      a.paid.ended('x', 'failed');
    }
  });
});

describe('MCP calls counted', () => {
  const body = (v: unknown) => Buffer.from(JSON.stringify(v));
  const call = (name: string, meta?: unknown) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) },
  });
  it('one per message, each element of a batch, at least one per request', () => {
    expect(countCalls(body({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).count).toBe(1);
    expect(countCalls(body(Array.from({ length: 100 }, () => ({ method: 'tools/list' })))).count).toBe(100);
    expect(countCalls(body([])).count).toBe(1);
    expect(countCalls(Buffer.from('{not json')).count).toBe(1);
    expect(countCalls(null).count).toBe(1);
  });

  it('a paid tool call carrying a payment is left to the paid caller; a free tool with one, or a paid tool without, is counted', () => {
    const payment = { 'x402/payment': { x402Version: 2 } };
    expect(countCalls(body(call('epoch', payment))).count).toBe(0);
    expect(countCalls(body([call('epoch', payment), call('epoch'), call('catalog', payment), call('nope', payment)])).count).toBe(3);
    expect(countCalls(body(call('epoch', { other: 1 }))).count).toBe(1);
  });
});

describe('the byte bound', () => {
  function metered(burst = 1000) {
    const c = clock();
    const a = createClientAdmission({
      free: { ratePerSecond: 1, burst: 100 },
      bytes: { ratePerSecond: 100, burst },
      failed: { ratePerSecond: 1, burst: 2 },
      paidPaths: new Set([PAID]),
      callsPath: '/mcp',
      now: c.now,
    });
    return { a, c };
  }

  it('spends what was sent; while the client owes bytes its free calls are refused, with the wait in Retry-After', () => {
    const { a, c } = metered();
    expect(a.door(req('/openapi.json'))).toBeNull();
    // One answer larger than the bucket is sent whole, then owed.
    expect(a.sent('198.51.100.1', 1_250)).toBe(false);
    for (const path of ['/openapi.json', PAID, '/mcp', '/ledger/live']) {
      const refused = a.door(req(path));
      expect(refused?.status, path).toBe(429);
      expect(refused?.headers?.['Retry-After'], path).toBe('3');
    }
    expect(a.paid.unmatched('198.51.100.1')?.status).toBe(429);
    expect(a.door(req('/openapi.json', {}, '198.51.100.2'))).toBeNull(); // another client
    c.advance(2_500);
    expect(a.door(req('/openapi.json'))).toBeNull();
  });

  it('counts every answer but a paid route’s 200 and MCP’s (which spends its own share)', () => {
    const { a } = metered();
    expect([a.counts('/openapi.json', 200), a.counts(PAID, 402), a.counts(PAID, 429), a.counts(PAID, 200), a.counts('/mcp', 200)]).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('a paid call gives back one free answer’s bytes, never more than the free answers cost', () => {
    const { a } = metered(1_000);
    a.sent('198.51.100.1', 600);
    a.sent('198.51.100.1', 600); // 402s of two calls in flight: owes 200
    expect(a.door(req(PAID))?.status).toBe(429);
    a.paid.ended('198.51.100.1', 'paid');
    expect(a.door(req(PAID))).toBeNull(); // 400 left
    a.paid.ended('198.51.100.1', 'paid'); // 800: what the spends took is given back, up to the burst
    a.paid.ended('198.51.100.1', 'paid'); // nothing left to give back: no banking
    expect(a.sent('198.51.100.1', 800)).toBe(true);
    expect(a.sent('198.51.100.1', 1)).toBe(false);
    a.paid.ended('198.51.100.1', 'failed');
    expect(a.door(req(PAID))?.status).toBe(429);
  });

  it('MCP answers spend the share of their unpaid calls', () => {
    const call = (name: string, meta?: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) },
    });
    const payment = { 'x402/payment': { x402Version: 2 } };
    const batch = Buffer.from(JSON.stringify([call('epoch', payment), call('epoch'), call('epoch'), call('epoch', payment)]));
    expect(countCalls(batch)).toMatchObject({ count: 2, total: 4 });
  });
});

describe('refused payments remembered', () => {
  it('answers the same payload under the key, for a while, at most maxEntries', () => {
    const c = clock();
    const failed = createFailedPayments({ ttlMs: 1_000, maxEntries: 2, now: c.now });
    failed.remember('k1', 'sha1', { reason: 'simulation_failed', message: 'no funds' });
    expect(failed.recall('k1', () => 'sha1')).toEqual({ reason: 'simulation_failed', message: 'no funds' });
    expect(failed.recall('k1', () => 'other')).toBeNull(); // another payload under the key is checked afresh
    expect(failed.recall('k2', () => 'sha1')).toBeNull();
    failed.remember('k2', 's', { reason: 'r' });
    failed.remember('k3', 's', { reason: 'r' });
    expect(failed.size()).toBe(2);
    expect(failed.recall('k1', () => 'sha1')).toBeNull(); // the oldest dropped
    c.advance(1_000);
    expect(failed.recall('k2', () => 's')).toBeNull(); // expired
    expect(failed.size()).toBe(1);
  });
});

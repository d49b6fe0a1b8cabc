/** Token buckets per client and the client address behind trusted proxies. */
import { describe, expect, it } from 'vitest';
import { clientAddress, trustedProxySet } from '../../../src/http/admission/client-address.ts';
import { createRateLimiter } from '../../../src/http/admission/rate-limiter.ts';
import { manualClock } from '../../helpers/manual-clock.ts';

const clock = manualClock;

describe('rate limiter', () => {
  it('admits a burst, then one request per refill interval, and says when to come back', () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 2, burst: 3, now: c.now });
    expect([1, 2, 3].map(() => limiter.take('a').ok)).toEqual([true, true, true]);
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    c.advance(499);
    expect(limiter.take('a').ok).toBe(false);
    c.advance(1);
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('b').ok).toBe(true); // another client has its own bucket
    c.advance(60_000);
    expect([1, 2, 3, 4].map(() => limiter.take('a').ok)).toEqual([true, true, true, false]); // refilled to the burst, no more
  });

  it('rounds Retry-After up to whole seconds at slow rates', () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 1, now: c.now });
    limiter.take('a');
    c.advance(100);
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  it('keeps at most maxClients buckets, the least recently seen dropped first', () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 1, maxClients: 2, now: c.now });
    limiter.take('a');
    limiter.take('b');
    limiter.take('a'); // a is now the most recent
    limiter.take('c'); // evicts b
    expect(limiter.size()).toBe(2);
    expect(limiter.take('a').ok).toBe(false); // a kept its empty bucket
    expect(limiter.take('b').ok).toBe(true); // b starts afresh
  });

  it('keeps the order right when one client asks several times in a row (no re-insertion then)', () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 1, maxClients: 2, now: c.now });
    limiter.take('a');
    limiter.take('a');
    limiter.take('b');
    limiter.take('b'); // b stays the most recent, a the least
    limiter.take('c'); // evicts a
    expect(limiter.take('b').ok).toBe(false); // b kept its empty bucket
    expect(limiter.take('a').ok).toBe(true); // a starts afresh (and evicts c)
    expect(limiter.take('b').ok).toBe(false);
    expect(limiter.size()).toBe(2);
  });

  it('rate 0 admits everything and tracks nothing', () => {
    const limiter = createRateLimiter({ ratePerSecond: 0, burst: 1 });
    for (let i = 0; i < 100; i++) expect(limiter.take('a').ok).toBe(true);
    expect(limiter.size()).toBe(0);
  });
});

describe('client address', () => {
  const trusted = trustedProxySet(['10.0.0.1', '10.0.0.2']);
  it('is the peer unless the peer is a trusted proxy', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.7', trusted)).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.1', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('::ffff:10.0.0.1', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.1', undefined, trusted)).toBe('10.0.0.1');
  });

  it('takes the right-most untrusted hop, so a forged left part changes nothing', () => {
    expect(clientAddress('10.0.0.1', '1.1.1.1, 198.51.100.7, 10.0.0.2', trusted)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.1', 'garbage, 198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.1', '198.51.100.7, not-an-ip', trusted)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', '10.0.0.2', trusted)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', '198.51.100.7', trustedProxySet([]))).toBe('10.0.0.1');
  });
});

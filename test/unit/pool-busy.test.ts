/**
 * The pool's queue is bounded (`--pool-max-queue`): past the bound a task is refused with
 * ServiceError `busy`, except work that must run (a receipt after a charge); and while the pool
 * is busy a paid call answers 503 `busy` before its payment is looked at (nothing verified,
 * nothing charged), a preview before its quota is claimed.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { ServiceError } from '../../src/errors.ts';
import { createPaidRoutes } from '../../src/http/routes/paid-routes.ts';
import { createWorkerPool } from '../../src/pool/worker-pool.ts';
import { createPreviewCaller } from '../../src/preview/preview-caller.ts';
import type { PreviewQuota } from '../../src/preview/preview-quota.ts';
import type { PaymentProcessor } from '../../src/x402/flow/payment-processor.ts';
import { createChallengeBuilder } from '../../src/x402/delivery/payment-terms.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';

const pool = createWorkerPool<PoolTasks>({ size: 1, maxQueue: 2, identitySeed: new Uint8Array(32).fill(3) });
afterAll(() => pool.close());

describe('the pool queue bound', () => {
  it('refuses a task past the bound with busy, runs one that must run, and takes work again once drained', async () => {
    const sign = () => pool.runTask('signEd25519', { message: new Uint8Array([1]) });
    const queued = [sign(), sign()];
    expect(pool.busy()).toBe(true);
    const refused = await sign().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe('busy');
    const receipt = pool.runTask('signEd25519', { message: new Uint8Array([2]) }, undefined, { mustRun: true });
    await Promise.all([...queued, receipt]);
    expect(pool.busy()).toBe(false);
    await sign();
  });
});

const TERMS = {
  svm: { payTo: '11111111111111111111111111111111', asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', feePayer: '11111111111111111111111111111111' },
  evm: { payTo: `0x${'11'.repeat(20)}`, asset: `0x${'22'.repeat(20)}`, name: 'USD Coin', version: '2' },
};
const request = (headers: Record<string, string>) => ({
  method: 'GET',
  path: '/v1/epoch',
  query: 'rate=both',
  headers,
  remoteIp: '127.0.0.1',
  body: null,
  signal: new AbortController().signal,
});

describe('work refused while the pool is busy', () => {
  it('a paid call answers 503 busy with Retry-After before its payment reaches the processor', async () => {
    const process = vi.fn<PaymentProcessor['processPaidCall']>();
    const processor: PaymentProcessor = { processPaidCall: process, supported: () => ({ kinds: [], signers: {} }) };
    const challenges = new Map(CATALOG.map((e) => [e.path, createChallengeBuilder(e, TERMS)]));
    let busy = true;
    const route = createPaidRoutes({ baseUrl: () => 'http://x', challenges, handlers: {}, processor, busy: () => busy }).find((r) => r.path === '/v1/epoch')!;
    const refused = await route.handler(request({ 'payment-signature': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' }));
    expect(refused.status).toBe(503);
    expect(refused.headers?.['Retry-After']).toBe('1');
    expect(JSON.parse(String('body' in refused ? refused.body : '')).error).toBe('busy');
    expect(process).not.toHaveBeenCalled();
    // Without a payment the challenge still answers: it needs no pool.
    expect((await route.handler(request({}))).status).toBe(402);
    busy = false;
    expect((await route.handler(request({ 'payment-signature': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' }))).status).toBe(402);
  });

  it('a preview answers 503 busy before its quota is claimed or its handler runs', async () => {
    const claim = vi.fn();
    const handler = vi.fn();
    const quota = { claim, failure: () => null } as unknown as PreviewQuota;
    const preview = createPreviewCaller({ handlers: { '/v1/epoch': handler } as never, stopped: () => null, quota, busy: () => true });
    const entry = CATALOG.find((e) => e.path === '/v1/epoch')!;
    const reply = await preview({ entry, query: 'rate=both', remoteIp: '127.0.0.1', signal: new AbortController().signal });
    expect(reply.status).toBe(503);
    expect(claim).not.toHaveBeenCalled();
    expect(handler).not.toHaveBeenCalled();
  });
});

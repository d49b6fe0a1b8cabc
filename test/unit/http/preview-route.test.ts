/**
 * `GET /preview/<paid path>` through its route and caller, with handlers the test controls, a
 * real quota on a temp dir and a pinned clock: 404 for a path that is no paid endpoint, 400 and
 * 503 before the quota is touched, the cut 200 with no-store and no receipt, the 429 body and
 * `Retry-After`, and every outcome other than a 200 (handler fault, client gone, quota file
 * failure) leaving the day's preview unused. Clients differ by synthetic remote addresses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceError, type HttpReply } from '../../../src/errors.ts';
import { createPreviewRoute } from '../../../src/http/routes/preview-route.ts';
import type { AnyReply } from '../../../src/http/server/route.ts';
import type { PaidHandlers } from '../../../src/intel/handler-group.ts';
import { createPreviewCaller } from '../../../src/preview/preview-caller.ts';
import { openPreviewQuota, type PreviewQuota } from '../../../src/preview/preview-quota.ts';

const MINT = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const POOLS = Array.from({ length: 8 }, (_, i) => ({ name: `pool ${i}`, liquidityUsd: 1000 * i }));

let dir: string;
let quota: PreviewQuota;
let stopped: string | null;
let gate: Promise<void>;
let calls: number;
let fault: ServiceError | null;

const handlers = {
  '/v1/smri': async (q: Readonly<Record<string, unknown>>) => {
    calls++;
    await gate;
    if (fault) throw fault;
    return { mint: q.mint, smri: 71, smriBand: 'low-risk', confidence: 1, components: { contract: { score: 100 } }, riskBand: 'low' };
  },
  '/v1/trending-tokens': async () => ({ count: POOLS.length, limit: 15, pools: POOLS, source: 'fixture' }),
} as unknown as PaidHandlers;

function route() {
  return createPreviewRoute(createPreviewCaller({ handlers, stopped: () => stopped, quota }));
}

async function send(method: string, pathAndQuery: string, remoteIp: string, signal: AbortSignal): Promise<AnyReply> {
  const [path = '', query = ''] = pathAndQuery.split('?');
  return route().handler({ method, path, query, headers: {}, remoteIp, body: null, signal });
}
async function get(pathAndQuery: string, remoteIp = '203.0.113.9', signal = new AbortController().signal): Promise<HttpReply> {
  const reply = await send('GET', pathAndQuery, remoteIp, signal);
  if ('stream' in reply) throw new Error('a GET preview is never streamed');
  return reply;
}
const head = (pathAndQuery: string) => send('HEAD', pathAndQuery, '203.0.113.9', new AbortController().signal);
const json = (r: HttpReply) => JSON.parse(String(r.body));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'preview-route-'));
  quota = openPreviewQuota({ dir, now: () => new Date('2026-11-24T23:59:30Z') });
  stopped = null;
  gate = Promise.resolve();
  calls = 0;
  fault = null;
});
afterEach(async () => {
  await quota.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /preview/<paid path>', () => {
  it('a path that is no paid endpoint: 404 not_found', async () => {
    for (const p of ['/preview/v1/nope', '/preview/health', '/preview/v1/smri/', '/preview/']) {
      const r = await get(p);
      expect(r.status, p).toBe(404);
      expect(json(r)).toMatchObject({ error: 'not_found' });
    }
  });

  it('400 naming the parameter and 503 while paid calls are stopped, neither touching the quota or the handler', async () => {
    const bad = await get('/preview/v1/smri?mint=xyz');
    expect(bad.status).toBe(400);
    expect(json(bad)).toMatchObject({ error: 'invalid_parameter', param: 'mint' });
    expect(json(await get('/preview/v1/smri'))).toMatchObject({ error: 'missing_parameter', param: 'mint' });
    stopped = 'paid calls are stopped by the operator';
    const off = await get(`/preview/v1/smri?mint=${MINT}`);
    expect(off.status).toBe(503);
    expect(json(off)).toEqual({ error: 'service_stopped', message: stopped });
    expect(calls).toBe(0);
    expect(quota.size()).toBe(0);
    stopped = null;
    expect((await get(`/preview/v1/smri?mint=${MINT}`)).status).toBe(200);
  });

  it('200: the real answer cut by the rule, preview: true, no-store, no receipt; then 429 until UTC midnight', async () => {
    const ok = await get(`/preview/v1/smri?mint=${MINT}`);
    expect(ok.status).toBe(200);
    expect(ok.headers).toEqual({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    expect(json(ok)).toEqual({
      preview: true,
      mint: MINT,
      smri: 71,
      smriBand: 'low-risk',
      confidence: 1,
      riskBand: 'low',
      previewTruncated: { components: { withheld: true } },
    });
    const again = await get(`/preview/v1/trending-tokens`);
    expect(again.status).toBe(429);
    expect(again.headers).toMatchObject({ 'Retry-After': '30', 'Cache-Control': 'no-store', 'Content-Type': 'application/json' });
    const body = json(again);
    expect(Object.keys(body).sort()).toEqual(['error', 'message', 'nextPreviewAt', 'retryAfterSeconds']);
    expect(body).toMatchObject({ error: 'preview_limit_reached', retryAfterSeconds: 30, nextPreviewAt: '2026-11-25T00:00:00Z' });
    expect(body.message).toContain('one free preview per client per UTC day; the next is available at 2026-11-25T00:00:00Z');
    expect(body.message).toContain('/v1/trending-tokens');
    // Another client has its own preview.
    const other = json(await get('/preview/v1/trending-tokens?limit=20', '2001:db8::7'));
    expect(other.pools).toEqual(POOLS.slice(0, 3));
    expect(other.previewTruncated).toEqual({ pools: { shown: 3, total: 8 } });
  });

  it('HEAD says whether a preview would be given and uses nothing: no handler run, no Content-Length, the GET still gets its 200', async () => {
    const first = await head(`/preview/v1/smri?mint=${MINT}`);
    expect(first.status).toBe(200);
    // A head without a length: the preview's is not known until it is computed, which a HEAD never does.
    expect('stream' in first).toBe(true);
    expect(first.headers).toMatchObject({ 'Cache-Control': 'no-store', 'Content-Type': 'application/json' });
    expect(calls).toBe(0);
    expect(quota.size()).toBe(0);
    expect((await get(`/preview/v1/smri?mint=${MINT}`)).status).toBe(200);
    const after = await head(`/preview/v1/smri?mint=${MINT}`);
    expect(after.status).toBe(429);
    expect(after.headers).toMatchObject({ 'Retry-After': '30' });
    expect(calls).toBe(1);
    expect((await head('/preview/v1/smri?mint=nope')).status).toBe(400);
  });

  it('a handler fault is answered as usual and leaves the preview unused', async () => {
    fault = new ServiceError('not_found', 'no account at this mint address', { param: 'mint' });
    await expect(get(`/preview/v1/smri?mint=${MINT}`)).rejects.toBe(fault);
    fault = new ServiceError('upstream_unavailable', 'rpc down');
    await expect(get(`/preview/v1/smri?mint=${MINT}`)).rejects.toBe(fault);
    expect(quota.size()).toBe(0);
    fault = null;
    expect((await get(`/preview/v1/smri?mint=${MINT}`)).status).toBe(200);
  });

  it('a second request of the same client while the first runs gets 429; a client that went away keeps its preview', async () => {
    let open!: () => void;
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const gone = new AbortController();
    const first = get(`/preview/v1/smri?mint=${MINT}`, '203.0.113.9', gone.signal);
    const second = await get(`/preview/v1/smri?mint=${MINT}`);
    expect(second.status).toBe(429);
    expect(json(second).message).toMatch(/already running/);
    gone.abort();
    open();
    await expect(first).rejects.toThrow();
    expect(quota.size()).toBe(0);
    expect((await get(`/preview/v1/smri?mint=${MINT}`)).status).toBe(200);
  });

  it('an endpoint without a data source answers 502 without using the preview', async () => {
    const r = await get(`/preview/v1/epoch?rate=both`);
    expect(r.status).toBe(502);
    expect(json(r)).toMatchObject({ error: 'upstream_unavailable' });
    expect(quota.size()).toBe(0);
  });

  it('a quota file that cannot be written: 503, preview unused, later previews refused before the handler runs', async () => {
    rmSync(dir, { recursive: true, force: true });
    const r = await get(`/preview/v1/smri?mint=${MINT}`);
    expect(r.status).toBe(503);
    expect(json(r)).toMatchObject({ error: 'service_stopped', message: expect.stringMatching(/preview quota file cannot be written \(ENOENT\)/) });
    expect(json(r).message).not.toContain(dir);
    expect(quota.size()).toBe(0);
    expect((await get(`/preview/v1/smri?mint=${MINT}`, '198.51.100.1')).status).toBe(503);
    expect(calls).toBe(1);
  });

  it("the day's capacity used up: 429 saying so", async () => {
    await quota.close();
    quota = openPreviewQuota({ dir, maxClientsPerDay: 1, now: () => new Date('2026-11-24T12:00:00Z') });
    expect((await get(`/preview/v1/smri?mint=${MINT}`)).status).toBe(200);
    const full = await get(`/preview/v1/smri?mint=${MINT}`, '198.51.100.1');
    expect(full.status).toBe(429);
    expect(full.headers?.['Retry-After']).toBe('43200');
    expect(json(full).message).toMatch(/free preview capacity for this UTC day is used up/);
  });
});

/**
 * The free daily preview over HTTP against the real service and its embedded localnet, with the
 * quota's clock pinned through ServiceOptions.now: 400 and 503 use nothing; the first preview is
 * the real answer cut and marked, with no receipt, no payment and no ledger entry; the second is
 * 429 with Retry-After to UTC midnight; the paid path still answers 402; a client on another
 * address (::1 beside 127.0.0.1 on a dual-stack listener) has its own preview; the quota survives
 * a restart on the same data dir and reopens at midnight. Then every paid endpoint's preview on
 * the localnet (a pinned day each), its rule fitting the real answer's shape.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CATALOG, CATALOG_BY_PATH } from '../../src/catalog/endpoints.ts';
import { startService, type RunningService, type Upstreams } from '../../src/service/service.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestLocalnet, type TestService } from '../helpers/test-service.ts';
import { testServiceConfig } from '../helpers/test-support.ts';

type Localnet = NonNullable<TestService['localnet']>;

const clock = { now: new Date('2026-11-24T23:59:30Z') };
let localnet: Localnet;
let upstreams: Upstreams;
let dataDir: string;
let service: RunningService;
/** Whether this machine has IPv6 loopback, so the service can listen dual-stack. */
let dualStack = false;

async function canListenOn(host: string): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, host, () => server.close(() => resolve(true)));
  });
}

async function start(): Promise<RunningService> {
  const config = testServiceConfig(dataDir, ['--host', dualStack ? '::' : '127.0.0.1']);
  return startService(config, { upstreams, now: () => clock.now });
}

beforeAll(async () => {
  dualStack = await canListenOn('::1');
  ({ localnet, upstreams } = await startTestLocalnet(undefined, FULL_TRAFFIC));
  dataDir = mkdtempSync(join(tmpdir(), 'x402-preview-'));
  service = await start();
}, 120_000);
afterAll(async () => {
  await service?.close();
  await localnet?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const v4 = () => `http://127.0.0.1:${service.port}`;
const mint = (key: string) => localnet.world.mints.get(key)!.address;

describe('GET /preview/<paid path>', () => {
  it('400 and 503 use nothing; the first preview is the real answer cut and marked, with no receipt, payment or ledger entry', async () => {
    const bad = await fetch(`${v4()}/preview/v1/smri?mint=nope`);
    expect(bad.status).toBe(400);
    expect(await readJson(bad)).toMatchObject({ error: 'invalid_parameter', param: 'mint' });
    expect((await fetch(`${v4()}/preview/v1/no-such-endpoint`)).status).toBe(404);
    await service.killSwitch.activate('preview test');
    const off = await fetch(`${v4()}/preview/v1/smri?mint=${mint('BONK')}`);
    expect(off.status).toBe(503);
    expect(await readJson(off)).toMatchObject({ error: 'service_stopped' });
    await service.killSwitch.release();

    const entries = service.ledger.head().treeSize;
    // A HEAD first (a link checker, a CDN's probe): the head of a 200 to come, with no length, and nothing used.
    const probe = await fetch(`${v4()}/preview/v1/smri?mint=${mint('BONK')}`, { method: 'HEAD' });
    expect(probe.status).toBe(200);
    expect(probe.headers.get('content-length')).toBeNull();
    expect((await readJson(fetch(`${v4()}/health`))).preview).toEqual({ clientsToday: 0, writable: true });
    const res = await fetch(`${v4()}/preview/v1/smri?mint=${mint('BONK')}`);
    const body = await readJson(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-service-receipt')).toBeNull();
    expect(res.headers.get('payment-response')).toBeNull();
    expect(Object.keys(body)[0]).toBe('preview');
    expect(body).toMatchObject({ preview: true, mint: mint('BONK'), smriBand: expect.any(String), previewTruncated: { components: { withheld: true } } });
    expect(body.components).toBeUndefined();
    expect(service.ledger.head().treeSize).toBe(entries);
    expect((await readJson(fetch(`${v4()}/health`))).preview).toEqual({ clientsToday: 1, writable: true });
  }, 60_000);

  it('the second preview of the day is 429 with Retry-After to UTC midnight; HEAD is refused alike; the paid path is still 402', async () => {
    const res = await fetch(`${v4()}/preview/v1/epoch?rate=both`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    const body = await readJson(res);
    expect(body).toEqual({
      error: 'preview_limit_reached',
      message: expect.stringContaining('/v1/epoch'),
      retryAfterSeconds: 30,
      nextPreviewAt: '2026-11-25T00:00:00Z',
    });
    expect(body.message).toContain('the next is available at 2026-11-25T00:00:00Z');
    expect((await fetch(`${v4()}/preview/v1/epoch?rate=both`, { method: 'HEAD' })).status).toBe(429);
    const paid = await fetch(`${v4()}/v1/smri?mint=${mint('BONK')}`);
    expect(paid.status).toBe(402);
    expect(paid.headers.get('payment-required')).toBeTruthy();
  }, 60_000);

  it('a client on another address has its own preview (::1 beside 127.0.0.1)', async (ctx) => {
    if (!dualStack) ctx.skip();
    const res = await fetch(`http://[::1]:${service.port}/preview/v1/smri?mint=${mint('USDC')}`);
    expect(res.status).toBe(200);
    expect((await readJson(res)).preview).toBe(true);
    expect((await fetch(`http://[::1]:${service.port}/preview/v1/smri?mint=${mint('USDC')}`)).status).toBe(429);
  }, 60_000);

  it('the quota survives a restart on the same data dir, and the next UTC day opens a new preview', async () => {
    await service.close();
    service = await start();
    const held = await fetch(`${v4()}/preview/v1/smri?mint=${mint('BONK')}`);
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toBe('30');
    clock.now = new Date('2026-11-25T00:00:00Z');
    expect((await fetch(`${v4()}/preview/v1/smri?mint=${mint('BONK')}`)).status).toBe(200);
    const next = await fetch(`${v4()}/preview/v1/smri?mint=${mint('BONK')}`);
    expect(next.status).toBe(429);
    expect(next.headers.get('retry-after')).toBe('86400');
  }, 120_000);
});

const WSOL = 'So11111111111111111111111111111111111111112';

/** A query each paid endpoint answers 200 on the localnet, with lists longer than a preview keeps where the world has them. */
function localnetQuery(path: string): string {
  const { wallets } = localnet.world;
  const queries: Record<string, string> = {
    '/v1/smri': `mint=${mint('BONK')}`,
    '/v1/simulate': new URLSearchParams(CATALOG_BY_PATH.get('/v1/simulate')!.example).toString(),
    '/v1/decision': `mint=${mint('BONK')}&policy=anti-rug`,
    '/v1/token-holders': `mint=${mint('flat')}`,
    '/v1/slippage-map': `inputMint=${WSOL}&outputMint=${mint('USDC')}&amount=1000000000&mults=0.5,1,2,1000`,
    '/v1/tipfloor': 'fresh=true',
    '/v1/epoch': 'rate=both',
    '/v1/lending/markets': 'limit=100',
    '/v1/sgp-checkpoint': 'n=20',
    '/v1/token-risk': `mint=${mint('multiRisk')}`,
    '/v1/wallet-scan': `address=${wallets.heavy[0]!.address}`,
    '/v1/token-intel': `mint=${mint('flat')}`,
    '/v1/batch/token-risk': `mints=${['BONK', 'USDC', 'JUP', 'WIF'].map(mint).join(',')}`,
    '/v1/priority-fee': '',
    '/v1/dex-quote': `inputMint=${WSOL}&outputMint=${mint('USDC')}&amount=1000000000`,
    '/v1/trending-tokens': 'limit=20',
    '/v1/new-pairs': 'limit=20',
    '/v1/nft-collection': 'symbol=local_apes',
    '/v1/tx-inspect': `sig=${wallets.fresh[0]!.signatures[1]}`,
    '/v1/pretrade': `mint=${mint('mintable')}`,
  };
  // An endpoint with no query of its own here is asked its catalog example.
  return queries[path] ?? new URLSearchParams(CATALOG_BY_PATH.get(path)!.example).toString();
}

const at = (root: unknown, path: string): any => path.split('.').reduce<any>((node, s) => (node && typeof node === 'object' ? node[s] : undefined), root);

describe('every paid endpoint previewed on the localnet', () => {
  beforeAll(async () => {
    // The timing windows fill from slots confirmed after the service subscribed; /health shows them.
    await vi.waitUntil(
      async () => {
        const { timing } = await readJson(fetch(`${v4()}/health`));
        return timing.geyser.live && timing.caches.feeSlots >= 3 && timing.caches.tipSlots >= 3;
      },
      { timeout: 60_000, interval: 100 },
    );
  }, 90_000);

  it.each(CATALOG.map((e, i) => [e.path, e, i] as const))(
    '%s: 200, and its rule fits the real answer',
    async (path, entry, i) => {
      // A new UTC day for each endpoint, so each gets this client's preview.
      clock.now = new Date(Date.UTC(2026, 11, 1 + i, 12));
      const res = await fetch(`${v4()}/preview${path}?${localnetQuery(path)}`);
      const body = await readJson(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.preview).toBe(true);
      const noted = body.previewTruncated as Record<string, unknown>;
      expect(Object.keys(noted).every((p) => p in entry.preview.cut || entry.preview.withhold.includes(p))).toBe(true);
      for (const [p, keep] of Object.entries(entry.preview.cut)) {
        const list = at(body, p);
        expect(Array.isArray(list), `${p} is a list in the answer`).toBe(true);
        expect(list.length).toBeLessThanOrEqual(keep);
        if (noted[p] !== undefined) expect(noted[p]).toEqual({ shown: keep, total: expect.any(Number) });
      }
      for (const p of entry.preview.withhold) {
        expect(noted[p], `${p} withheld`).toEqual({ withheld: true });
        expect(at(body, p)).toBeUndefined();
      }
    },
    60_000,
  );
});

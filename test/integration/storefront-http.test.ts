/**
 * The storefront over HTTP against the real service (no browser): the page at `/` with its
 * catalog, CSP and revalidation; the hashed assets cached for a year, negotiated Brotli/gzip/
 * identity, 304 on If-None-Match, 404 JSON for an unknown asset; and the live ledger feed: the
 * current checkpoint and newest entries on connect, then each durable entry (the kill switch's
 * audit entries here) and the checkpoint after it, exactly as /ledger and /health state them,
 * and every feed socket closed when the service closes.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { formatUsd } from '../../src/catalog/format-usd.ts';
import { openFeed } from '../helpers/feed-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

let t: TestService;
let closed = false;
beforeAll(async () => {
  t = await startTestService();
}, 120_000);
afterAll(async () => {
  if (!closed) await t?.close();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** GET without any decoding, so the bytes on the wire are what is checked. */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const assetLinks = (html: string) => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('the page at /', () => {
  it('serves the catalog as HTML under a strict CSP, revalidated on every visit', async () => {
    const res = await rawGet('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['content-security-policy']).toContain("connect-src 'self' ws: wss:");
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    const html = res.body.toString();
    for (const e of CATALOG) expect(html).toContain(`<code>${e.path}</code></h4><span class="price">${formatUsd(e.priceUnits)}`);
    // No inline script: the only <script> with code is the bundle; the catalog data is JSON.
    expect([...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!.trim())).toEqual([
      expect.stringMatching(/^type="module" src="\/assets\//),
      'type="application/json" id="catalog-data"',
    ]);
    expect(assetLinks(html)).toHaveLength(2);
  });

  it.each([
    ['br', brotliDecompressSync],
    ['gzip', gunzipSync],
  ] as const)('sends %s when asked, the same page, its own ETag, and 304 for that ETag', async (coding, decode) => {
    const plain = await rawGet('/');
    const res = await rawGet('/', { 'accept-encoding': coding });
    expect(res.headers['content-encoding']).toBe(coding);
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(decode(res.body).equals(plain.body)).toBe(true);
    expect(res.headers.etag).not.toBe(plain.headers.etag);
    const again = await rawGet('/', { 'accept-encoding': coding, 'if-none-match': String(res.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(res.headers.etag);
    expect(again.headers['content-length']).toBeUndefined();
  });
});

describe('assets', () => {
  it('serves each linked asset cached for a year, immutable, negotiated and revalidated', async () => {
    const links = assetLinks((await rawGet('/')).body.toString());
    const manifest = JSON.parse(readFileSync(new URL('../../dist/web/manifest.json', import.meta.url), 'utf8'));
    for (const link of links) {
      const plain = await rawGet(link);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-type']).toBe(link.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(plain.headers['x-content-type-options']).toBe('nosniff');
      const logical = link.endsWith('.js') ? 'app.js' : 'app.css';
      expect(link).toBe(`/assets/${manifest.assets[logical].file}`);
      expect(plain.body.length).toBe(manifest.assets[logical].bytes);
      const br = await rawGet(link, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      const gz = await rawGet(link, { 'accept-encoding': 'gzip' });
      expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
      const notModified = await rawGet(link, { 'if-none-match': String(plain.headers.etag) });
      expect(notModified.status).toBe(304);
      expect(notModified.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });

  it.each(['/assets/app-AAAAAAAA.js', '/assets/', '/assets/../package.json', '/assets/manifest.json'])('answers 404 JSON for %s', async (path) => {
    const res = await fetch(`${t.url}${path}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });
});

/** Flips the kill switch through the admin listener (each flip appends an audit entry). */
async function killSwitch(action: 'activate' | 'release'): Promise<void> {
  const token = readFileSync(t.service.adminTokenPath!, 'utf8').trim();
  const res = await fetch(`${t.service.adminUrl}/kill-switch/${action}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
}

describe('the live ledger feed', () => {
  it('answers a plain GET with 426', async () => {
    const res = await fetch(`${t.url}/ledger/live`);
    expect(res.status).toBe(426);
    expect(await res.json()).toMatchObject({ error: 'upgrade_required' });
  });

  it('sends the checkpoint and the 20 newest entries on connect, then each new entry and checkpoint', async () => {
    for (let i = 0; i < 11; i++) {
      await killSwitch('activate');
      await killSwitch('release');
    }
    const ledger = await readJson(fetch(`${t.url}/ledger?limit=20`));
    expect(ledger.treeSize).toBe(22);
    const feed = await openFeed(`${t.url.replace('http:', 'ws:')}/ledger/live`);
    expect(JSON.parse(await feed.next())).toEqual({ type: 'checkpoint', treeSize: 22, rootSha256: ledger.merkleRootSha256, chainHead: ledger.chainHeadSha256 });
    const backlog = [];
    for (let i = 0; i < 20; i++) backlog.push(JSON.parse(await feed.next()));
    expect(backlog).toEqual(ledger.entries.map((entry: unknown) => ({ type: 'entry', entry })));

    await killSwitch('activate');
    const entry = JSON.parse(await feed.next());
    const checkpoint = JSON.parse(await feed.next());
    const after = await readJson(fetch(`${t.url}/ledger?limit=1`));
    expect(entry).toEqual({ type: 'entry', entry: after.entries[0] });
    expect(entry.entry).toMatchObject({ index: 22, kind: 'audit', event: 'kill-switch.activated' });
    const health = await readJson(fetch(`${t.url}/health`));
    expect(checkpoint).toEqual({ type: 'checkpoint', treeSize: 23, rootSha256: health.ledger.merkleRootSha256, chainHead: health.ledger.chainHeadSha256 });
    await killSwitch('release');
    expect(JSON.parse(await feed.next())).toMatchObject({ type: 'entry', entry: { index: 23, event: 'kill-switch.released' } });
    feed.socket.close();
    await feed.closed;
  });

  it('is closed (1001) when the service closes, and the close does not wait on it', async () => {
    const feed = await openFeed(`${t.url.replace('http:', 'ws:')}/ledger/live`);
    expect(JSON.parse(await feed.next())).toMatchObject({ type: 'checkpoint' });
    closed = true;
    await t.close();
    expect(await feed.closed).toBe(1001);
  });
});

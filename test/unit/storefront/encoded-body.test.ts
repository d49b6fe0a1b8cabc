/**
 * Content negotiation of the page and its assets: the coding chosen for each Accept-Encoding
 * (quality values, `*`, refusals), one strong ETag per variant, If-None-Match answered 304 (with
 * weak comparison and lists), and the variants really decode to the identity bytes.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeBody, encodedReply, etagOf, noneMatch, preferredCoding } from '../../../src/storefront/encoded-body.ts';

describe('preferredCoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['deflate', 'identity'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['identity', 'identity'],
    ['x-gzip', 'gzip'],
    ['GZIP;Q=1.0', 'gzip'],
    ['br;q=abc, gzip', 'gzip'],
  ] as const)('Accept-Encoding %j -> %s', (header, coding) => {
    expect(preferredCoding(header)).toBe(coding);
  });
});

describe('ETags and If-None-Match', () => {
  const body = encodeBody('<p>hello</p>'.repeat(50));

  it('gives each variant its own strong tag', () => {
    const tags = (['identity', 'br', 'gzip'] as const).map((c) => etagOf(body, c));
    expect(new Set(tags).size).toBe(3);
    for (const t of tags) expect(t).toMatch(/^"[0-9a-f]{32}(?:-br|-gz)?"$/);
  });

  it('matches exact, weak, listed and * tags, and nothing else', () => {
    const tag = etagOf(body, 'br');
    expect(noneMatch(tag, tag)).toBe(true);
    expect(noneMatch(`W/${tag}`, tag)).toBe(true);
    expect(noneMatch(`"other", ${tag}`, tag)).toBe(true);
    expect(noneMatch('*', tag)).toBe(true);
    expect(noneMatch(etagOf(body, 'gzip'), tag)).toBe(false);
    expect(noneMatch(undefined, tag)).toBe(false);
    expect(noneMatch('', tag)).toBe(false);
  });

  it('answers the preferred variant with its tag, then 304 without a body for that tag', () => {
    const headers = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' };
    const first = encodedReply(body, { 'accept-encoding': 'gzip, br' }, headers);
    expect(first.status).toBe(200);
    expect(first.headers).toMatchObject({ ...headers, 'Content-Encoding': 'br', Vary: 'Accept-Encoding', ETag: etagOf(body, 'br') });
    expect(brotliDecompressSync(first.body as Buffer).equals(body.identity)).toBe(true);
    const again = encodedReply(body, { 'accept-encoding': 'gzip, br', 'if-none-match': first.headers!.ETag! }, headers);
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers).toMatchObject({ ETag: etagOf(body, 'br'), 'Cache-Control': 'no-cache', Vary: 'Accept-Encoding' });
    // The same tag does not validate another variant: a gzip-only client gets the gzip bytes.
    const gz = encodedReply(body, { 'accept-encoding': 'gzip', 'if-none-match': first.headers!.ETag! }, headers);
    expect(gz.status).toBe(200);
    expect(gunzipSync(gz.body as Buffer).equals(body.identity)).toBe(true);
    const plain = encodedReply(body, {}, headers);
    expect(plain.headers!['Content-Encoding']).toBeUndefined();
    expect(plain.body).toBe(body.identity);
  });
});

/**
 * The storefront's routes: the page at `/` (rendered once after listen, revalidated on every
 * visit: `no-cache` with an ETag) and its assets at `/assets/<content-hashed name>` (cached for a
 * year, immutable: a new build has new names). Both are served precompressed as the client
 * accepts.
 */
import { errorReply } from '../errors.ts';
import { encodedReply, type EncodedBody } from './encoded-body.ts';
import type { Route } from '../http/server/route.ts';
import { STOREFRONT_CSP } from './storefront-page.ts';
import type { WebAssets } from './web-assets.ts';

/** Where the assets are served. */
export const ASSETS_PREFIX = '/assets/';
/** One year: the longest a cache is asked to keep an asset; it never changes under its name. */
const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export interface StorefrontRoutesConfig {
  readonly assets: WebAssets;
  /** The rendered page (known after listen). */
  readonly page: () => EncodedBody;
}

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  'Content-Security-Policy': STOREFRONT_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

/** `GET /` (exact) and `GET /assets/...` (a prefix route). */
export function createStorefrontRoutes(config: Readonly<StorefrontRoutesConfig>): { routes: Route[]; prefixRoutes: Route[] } {
  const page: Route = { method: 'GET', path: '/', handler: (req) => encodedReply(config.page(), req.headers, PAGE_HEADERS) };
  const assets: Route = {
    method: 'GET',
    path: ASSETS_PREFIX,
    handler(req) {
      const asset = config.assets.byFile.get(req.path.slice(ASSETS_PREFIX.length));
      if (!asset) return errorReply({ error: 'not_found', message: `no such asset: ${req.path.slice(0, 256)}` });
      const headers = { 'Content-Type': asset.contentType, 'Cache-Control': ASSET_CACHE_CONTROL, 'X-Content-Type-Options': 'nosniff' };
      return encodedReply(asset.body, req.headers, headers);
    },
  };
  return { routes: [page], prefixRoutes: [assets] };
}

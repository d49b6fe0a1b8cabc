/**
 * The storefront side of the service: the built assets (the service loads them first of all, so
 * a missing build stops the start before anything opens), the page at `/` (rendered once; it names no host, the
 * browser's own origin is the service's), and the live ledger feed published from the ledger's
 * durable appends once the server listens.
 */
import { encodeBody } from '../storefront/encoded-body.ts';
import { createLedgerFeed } from '../http/routes/ledger-feed.ts';
import type { AnyReply, Route } from '../http/server/route.ts';
import type { HttpServer, HttpServerConfig } from '../http/server/server.ts';
import { buildStorefrontHtml } from '../storefront/storefront-page.ts';
import { createStorefrontRoutes } from '../storefront/storefront-routes.ts';
import type { WebAssets } from '../storefront/web-assets.ts';
import type { Ledger } from '../ledger/ledger.ts';

export interface StorefrontStack {
  /** The HTTP server's routes, prefix routes and feeds: the given ones plus the storefront's. */
  serve(routes: readonly Route<AnyReply>[], prefixRoutes: readonly Route<AnyReply>[]): Pick<HttpServerConfig, 'routes' | 'prefixRoutes' | 'feeds'>;
  /** Starts publishing the feed on the listening server. */
  start(server: Pick<HttpServer, 'publish' | 'subscribers'>): void;
  close(): void;
}

/** What the page says about the service, and its loaded assets. */
export interface StorefrontStackConfig {
  readonly serviceName: string;
  readonly version: string;
  readonly assets: WebAssets;
}

/** Renders the page and builds the routes and the feed over `ledger`. */
export function createStorefrontStack(config: Readonly<StorefrontStackConfig>, ledger: Pick<Ledger, 'head' | 'recent' | 'onAppend'>): StorefrontStack {
  const { assets } = config;
  const html = buildStorefrontHtml({
    serviceName: config.serviceName,
    version: config.version,
    scriptUrl: assets.url('app.js'),
    styleUrl: assets.url('app.css'),
  });
  const page = encodeBody(html);
  const { routes, prefixRoutes } = createStorefrontRoutes({ assets, page: () => page });
  const feed = createLedgerFeed(ledger);
  return {
    serve: (more, morePrefixes) => ({ routes: [...more, ...routes], prefixRoutes: [...morePrefixes, ...prefixRoutes], feeds: [feed.feed] }),
    start: (server) => feed.attach(server),
    close: () => feed.close(),
  };
}

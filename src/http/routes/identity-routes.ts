/**
 * The free routes that name the service to x402 catalogs and verifiers: its `did:web` DID document
 * (which binds the key id of signed offers and receipts to the service's public key), at both paths
 * a did:web resolver may ask, and the icon the bazaar service metadata points to.
 */
import type { Route } from '../server/route.ts';

export interface IdentityRoutesConfig {
  /** Paths the DID document answers at. */
  readonly didPaths: readonly string[];
  /** The DID document as JSON (built once the public URL is known). */
  readonly didDocument: () => string;
  readonly iconPath: string;
}

/** The service's icon: a plain mark (a shield over a bar chart) for catalogs that show one. */
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#14151a"/>' +
  '<path d="M32 8l20 7v15c0 13-8.5 22-20 26C20.5 52 12 43 12 30V15z" fill="#9945ff"/>' +
  '<path d="M22 40V32h5v8zm7.5 0V24h5v16zm7.5 0V28h5v12z" fill="#14f195"/></svg>';

/** An hour: the document changes only with the key or the public URL, both fixed for a process's life. */
const CACHE_CONTROL = 'public, max-age=3600';

/** GET of the DID document and the icon. */
export function createIdentityRoutes(config: IdentityRoutesConfig): Route[] {
  const did: Route[] = config.didPaths.map((path) => ({
    method: 'GET',
    path,
    handler: () => ({ status: 200, headers: { 'Content-Type': 'application/did+json', 'Cache-Control': CACHE_CONTROL }, body: config.didDocument() }),
  }));
  const icon: Route = {
    method: 'GET',
    path: config.iconPath,
    handler: () => ({
      status: 200,
      headers: { 'Content-Type': 'image/svg+xml', 'Cache-Control': CACHE_CONTROL, 'X-Content-Type-Options': 'nosniff' },
      body: ICON_SVG,
    }),
  };
  return [...did, icon];
}

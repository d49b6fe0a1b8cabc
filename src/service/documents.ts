/**
 * The discovery documents of the service, rendered once at start from the catalog and the routes'
 * payment terms: /.well-known/x402, the OpenAPI description, llms.txt and the pricing page.
 */
import { buildLlmsTxt, buildPricingHtml, buildWellKnown, type DiscoveryContext } from '../catalog/discovery.ts';
import { buildOpenApi } from '../catalog/openapi.ts';
import type { Documents } from '../http/routes/free-routes.ts';

/** The base URL the documents, challenges and streams name: `--public-url`, or where the listener is reachable. */
export function publicBaseUrl(config: { readonly host: string; readonly publicUrl?: string | null }, port: number): string {
  const urlHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return config.publicUrl ?? `http://${urlHost}:${port}`;
}

/**
 * The documents as the free routes read them: /.well-known/x402 is rendered again whenever
 * `generation` changes, since it carries the signed offers, which are re-signed every 8 minutes.
 */
export function documentsOf(ctx: DiscoveryContext, generation: () => string): () => Documents {
  let documents = renderDocuments(ctx);
  let current = generation();
  return () => {
    const now = generation();
    if (now !== current) {
      current = now;
      documents = { ...documents, wellKnown: JSON.stringify(buildWellKnown(ctx)) };
    }
    return documents;
  };
}

/** Every document, as the free routes serve them. */
export function renderDocuments(ctx: DiscoveryContext): Documents {
  return {
    wellKnown: JSON.stringify(buildWellKnown(ctx)),
    openApi: JSON.stringify(buildOpenApi(ctx)),
    llmsTxt: buildLlmsTxt(ctx),
    pricingHtml: buildPricingHtml(ctx),
  };
}

/**
 * The discovery documents of the service, rendered once at start from the catalog and the routes'
 * payment terms: /.well-known/x402, the OpenAPI description, llms.txt and the pricing page.
 */
import { buildLlmsTxt, buildPricingHtml, buildWellKnown, type DiscoveryContext } from '../catalog/discovery.ts';
import { buildOpenApi } from '../catalog/openapi.ts';
import type { Documents } from '../http/free-routes.ts';

/** Every document, as the free routes serve them. */
export function renderDocuments(ctx: DiscoveryContext): Documents {
  return {
    wellKnown: JSON.stringify(buildWellKnown(ctx)),
    openApi: JSON.stringify(buildOpenApi(ctx)),
    llmsTxt: buildLlmsTxt(ctx),
    pricingHtml: buildPricingHtml(ctx),
  };
}

/**
 * Free endpoints: health, uptime and the discovery documents. Static documents are rendered
 * once at start and served as prebuilt strings.
 */
import type { SupportedKinds } from '../../x402/types/x402-types.ts';
import type { ProcessSnapshot } from './process-metrics.ts';
import type { MetricsSnapshot } from './request-metrics.ts';
import type { Route } from '../server/route.ts';
import { parameterless } from './trust-query.ts';

export interface Documents {
  readonly wellKnown: string;
  readonly openApi: string;
  readonly llmsTxt: string;
  readonly pricingHtml: string;
}

export interface FreeRoutesConfig {
  readonly serviceName: string;
  readonly version: string;
  readonly startedAt: Date;
  readonly metrics: () => MetricsSnapshot;
  /** Rendered once the public URL is known (after listen). */
  readonly documents: () => Documents;
  /** x402 SupportedResponse parts: kinds that can settle now and their signers. */
  readonly supported: () => SupportedKinds;
  /** Extra fields for /health and /uptime contributed by other parts (ledger, kill switch, localnet). */
  readonly statusExtras?: () => Readonly<Record<string, unknown>>;
  /** Memory and event-loop delay of the process, in /health only (docs/operations.md#what-to-watch). */
  readonly process?: () => ProcessSnapshot;
}

const JSON_TYPE = { 'Content-Type': 'application/json' } as const;
const documentRoute = (path: string, type: string, body: () => string): Route => ({
  method: 'GET',
  path,
  handler: () => ({ status: 200, headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=60' }, body: body() }),
});

/** The free routes. */
export function createFreeRoutes(config: FreeRoutesConfig): Route[] {
  const uptimeSeconds = () => Math.round((Date.now() - config.startedAt.getTime()) / 1000);
  const extras = () => config.statusExtras?.() ?? {};
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/health',
      handler: () => ({
        status: 200,
        headers: JSON_TYPE,
        body: JSON.stringify({
          status: 'ok',
          service: config.serviceName,
          version: config.version,
          uptimeSeconds: uptimeSeconds(),
          requests: config.metrics(),
          ...(config.process ? { process: config.process() } : {}),
          ...extras(),
        }),
      }),
    },
    {
      method: 'GET',
      path: '/uptime',
      handler: () => {
        const m = config.metrics();
        return {
          status: 200,
          headers: JSON_TYPE,
          body: JSON.stringify({
            status: 'ok',
            startedAt: config.startedAt.toISOString(),
            uptimeSeconds: uptimeSeconds(),
            p95LatencyMs: m.latencyMs.p95,
            latencyMs: m.latencyMs,
            requests: { total: m.total, byStatusClass: m.byStatusClass },
            ...extras(),
          }),
        };
      },
    },
    {
      method: 'GET',
      path: '/facilitator/supported',
      handler: () => {
        const s = config.supported();
        return { status: 200, headers: JSON_TYPE, body: JSON.stringify({ kinds: s.kinds, extensions: [], signers: s.signers }) };
      },
    },
    documentRoute('/.well-known/x402', 'application/json', () => config.documents().wellKnown),
    documentRoute('/openapi.json', 'application/json', () => config.documents().openApi),
    documentRoute('/llms.txt', 'text/plain; charset=utf-8', () => config.documents().llmsTxt),
    documentRoute('/pricing', 'text/html; charset=utf-8', () => config.documents().pricingHtml),
  ];
  // None takes parameters: a query is refused like an unknown parameter anywhere else.
  return routes.map(parameterless);
}

/**
 * Composition of the HTTP service from a validated Config and its upstreams: identity, payment
 * terms, catalog-driven routes, discovery documents, metrics. `startService` is what main.ts and
 * the integration tests call; it listens and returns the bound URL and a graceful close.
 */
import { resolve } from 'node:path';
import { CATALOG } from './catalog/endpoints.ts';
import { buildLlmsTxt, buildPricingHtml, buildWellKnown, type DiscoveryContext } from './catalog/discovery.ts';
import { buildOpenApi } from './catalog/openapi.ts';
import { loadOrCreateEvmAddress } from './chain/evm-key.ts';
import type { Config } from './config.ts';
import { createFreeRoutes, type Documents } from './http/free-routes.ts';
import { createPaidRoutes, type PaidHandler, type PaymentProcessor } from './http/paid-routes.ts';
import { createRequestMetrics } from './http/request-metrics.ts';
import { createHttpServer } from './http/server.ts';
import { loadOrCreateIdentity, type Identity } from './trust/identity.ts';
import { createChallengeBuilder, type PaymentTermsConfig } from './x402/payment-terms.ts';

/** SPEC 9: the service version in OpenAPI and receipts. */
export const SERVICE_VERSION = '0.1.9';

/** What the embedded localnet (or the operator, in mainnet mode) provides. */
export interface Upstreams {
  readonly rpcUrl: string;
  readonly geyserUrl: string;
  /** Stablecoin mint on the Solana side when not configured (the localnet's own). */
  readonly svmAsset?: string;
  /** Shown in /health in embedded mode only: loopback URLs, no secrets. */
  readonly localnet?: Readonly<Record<string, string>>;
}

export interface ServiceOptions {
  readonly upstreams: Upstreams;
  readonly handlers?: Readonly<Partial<Record<string, PaidHandler>>>;
  readonly processor?: PaymentProcessor | null;
}

export interface RunningService {
  readonly url: string;
  readonly port: number;
  readonly identity: Identity;
  readonly terms: PaymentTermsConfig;
  close(): Promise<void>;
}

function paymentTerms(config: Config, identity: Identity, upstreams: Upstreams): PaymentTermsConfig {
  const svmAsset = config.svmAsset ?? upstreams.svmAsset;
  if (!svmAsset) throw new Error('no Solana stablecoin mint: set --svm-asset');
  const evmPayTo = config.evmPayTo ?? loadOrCreateEvmAddress(resolve(config.dataDir, 'evm-payto.key'));
  return {
    svm: { payTo: config.svmPayTo ?? identity.publicKey, asset: svmAsset, feePayer: identity.publicKey },
    evm: { payTo: evmPayTo, asset: config.evmAsset, name: config.evmAssetName, version: config.evmAssetVersion },
  };
}

function renderDocuments(ctx: DiscoveryContext): Documents {
  return {
    wellKnown: JSON.stringify(buildWellKnown(ctx)),
    openApi: JSON.stringify(buildOpenApi(ctx)),
    llmsTxt: buildLlmsTxt(ctx),
    pricingHtml: buildPricingHtml(ctx),
  };
}

/** Builds the service and listens on config.host:config.port (0 = ephemeral). */
export async function startService(config: Config, options: ServiceOptions): Promise<RunningService> {
  const startedAt = new Date();
  const identity = loadOrCreateIdentity(config.keypairPath);
  const terms = paymentTerms(config, identity, options.upstreams);
  const challenges = new Map(CATALOG.map((e) => [e.path, createChallengeBuilder(e, terms)]));
  const metrics = createRequestMetrics();
  const processor = options.processor ?? null;
  let baseUrl = '';
  let documents: Documents | null = null;

  const routes = [
    ...createFreeRoutes({
      serviceName: config.serviceName,
      version: SERVICE_VERSION,
      startedAt,
      metrics: () => metrics.snapshot(),
      documents: () => documents!,
      supported: () => processor?.supported() ?? { kinds: [], signers: {} },
      statusExtras: () => (options.upstreams.localnet ? { mode: config.mode, localnet: options.upstreams.localnet } : { mode: config.mode }),
    }),
    ...createPaidRoutes({ baseUrl: () => baseUrl, challenges, handlers: options.handlers ?? {}, processor }),
  ];
  const server = createHttpServer({ routes, onResponse: (status, ms) => metrics.record(status, ms) });
  const port = await server.listen(config.host, config.port);
  const urlHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  baseUrl = config.publicUrl ?? `http://${urlHost}:${port}`;
  documents = renderDocuments({
    baseUrl,
    serviceName: config.serviceName,
    version: SERVICE_VERSION,
    updatedAt: startedAt.toISOString(),
    acceptsFor: (e) => challenges.get(e.path)!.accepts,
  });
  return { url: baseUrl, port, identity, terms, close: () => server.close() };
}

/**
 * `/openapi.json`: OpenAPI 3.1.0 generated from the catalog. Every paid path has its query
 * parameters, its 200 schema, and a 402 carrying `x-x402-price` (docs/contract.md#payment-terms)
 * and the full `accepts` list; free endpoints are listed too.
 */
import { openApiStreams } from './stream-discovery.ts';
import type { DiscoveryContext } from './discovery.ts';
import { CATALOG, type EndpointEntry } from './endpoints.ts';
import { formatUsd } from './format-usd.ts';

/** Plain JSON copy of a TypeBox schema (drops symbol keys TypeBox keeps for itself). */
const json = <T>(schema: T): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', description: 'snake_case error code, e.g. invalid_parameter' },
    message: { type: 'string' },
    param: { type: 'string', description: 'the offending parameter, when one is' },
  },
};

const PAYMENT_REQUIRED_SCHEMA = {
  type: 'object',
  required: ['x402Version', 'resource', 'accepts'],
  properties: {
    x402Version: { const: 2 },
    error: { type: 'string' },
    resource: { type: 'object', properties: { url: { type: 'string' }, description: { type: 'string' }, mimeType: { type: 'string' } } },
    accepts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['scheme', 'network', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds'],
        properties: {
          scheme: { enum: ['exact', 'batch-settlement'] },
          network: { type: 'string' },
          amount: { type: 'string' },
          asset: { type: 'string' },
          payTo: { type: 'string' },
          maxTimeoutSeconds: { type: 'integer' },
          extra: { type: 'object' },
        },
      },
    },
  },
};

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

function paidOperation(e: EndpointEntry, ctx: DiscoveryContext): object {
  const query = e.query as unknown as { properties: Record<string, Record<string, unknown>>; required?: string[] };
  const required = new Set(query.required ?? []);
  const parameters = Object.entries(query.properties).map(([name, schema]) => {
    const { description, ...rest } = json(schema);
    return { name, in: 'query', required: required.has(name), description, schema: rest };
  });
  const accepts = ctx.acceptsFor(e);
  const svm = accepts[0]!;
  return {
    operationId: e.path.slice(1).replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()),
    summary: e.summary,
    description: `${e.description} Price ${formatUsd(e.priceUnits)} per call.`,
    tags: [e.category],
    parameters,
    'x-x402-price': { amount: e.priceUnits, asset: svm.asset, decimals: 6, price: formatUsd(e.priceUnits), network: svm.network, payTo: svm.payTo },
    responses: {
      '200': {
        description: 'Paid answer. Headers PAYMENT-RESPONSE (settlement) and X-Service-Receipt (signed receipt).',
        headers: {
          'PAYMENT-RESPONSE': { description: 'base64 JSON x402 SettleResponse', schema: { type: 'string' } },
          'X-Service-Receipt': { description: 'base64 JSON signed receipt', schema: { type: 'string' } },
        },
        content: { 'application/json': { schema: json(e.response) } },
      },
      '400': errorResponse('Invalid or missing parameter (answered before any payment).'),
      '402': {
        description: `Payment required: ${formatUsd(e.priceUnits)} in USDC on Solana or Base.`,
        'x-x402-price': { amount: e.priceUnits, asset: svm.asset, decimals: 6, price: formatUsd(e.priceUnits), network: svm.network, payTo: svm.payTo },
        'x-x402-accepts': accepts,
        headers: { 'PAYMENT-REQUIRED': { description: 'base64 JSON x402 v2 PaymentRequired', schema: { type: 'string' } } },
        // The challenge is the header's; the body is a short error (docs/payments.md#what-a-402-carries-and-why).
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
      '404': errorResponse('Not found on chain (unknown mint, signature or collection).'),
      '429': errorResponse('Rate limited; see Retry-After.'),
      '502': errorResponse('Upstream unavailable; nothing was charged.'),
      '503': errorResponse('Kill switch active or shutting down.'),
    },
  };
}

const FREE_PATHS: Readonly<Record<string, { summary: string; type: string }>> = {
  '/health': { summary: 'Liveness, version and request metrics', type: 'application/json' },
  '/uptime': { summary: 'Status, latency percentiles and request metrics', type: 'application/json' },
  '/.well-known/x402': { summary: 'x402 discovery catalog', type: 'application/json' },
  '/openapi.json': { summary: 'This document', type: 'application/json' },
  '/llms.txt': { summary: 'Text catalog for language-model agents', type: 'text/plain' },
  '/pricing': { summary: 'Catalog and prices for people', type: 'text/html' },
  '/facilitator/supported': { summary: 'Supported payment kinds and signers (x402 SupportedResponse)', type: 'application/json' },
  '/.well-known/did.json': { summary: 'did:web document: the key that signs x402 offers and receipts', type: 'application/did+json' },
  '/icon.svg': { summary: 'Service icon (the x402 bazaar iconUrl)', type: 'image/svg+xml' },
};

/** The OpenAPI 3.1.0 document. */
export function buildOpenApi(ctx: DiscoveryContext): object {
  const paths: Record<string, object> = {};
  for (const e of CATALOG) paths[e.path] = { get: paidOperation(e, ctx) };
  Object.assign(paths, openApiStreams(ctx));
  for (const [path, f] of Object.entries(FREE_PATHS)) {
    paths[path] = {
      get: {
        operationId: `free${path.replace(/[^A-Za-z0-9]+(\w?)/g, (_, c: string) => c.toUpperCase())}`,
        summary: f.summary,
        tags: ['free'],
        responses: { '200': { description: 'OK', content: { [f.type]: { schema: f.type.endsWith('json') ? { type: 'object' } : { type: 'string' } } } } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: ctx.serviceName,
      version: ctx.version,
      description:
        'Pay-per-call Solana token, wallet and execution intelligence over x402 v2 (scheme exact, USDC on Solana mainnet or Base; scheme batch-settlement, payment channels on Base, where offered). Answers are factual and threshold-stated; not financial advice.',
      ...(ctx.methodology ? { 'x-methodology': ctx.methodology } : {}),
    },
    servers: [{ url: ctx.baseUrl }],
    tags: [...new Set(CATALOG.map((e) => e.category)), 'streams', 'free'].map((name) => ({ name })),
    paths,
    components: { schemas: { Error: ERROR_SCHEMA, PaymentRequired: PAYMENT_REQUIRED_SCHEMA } },
  };
}

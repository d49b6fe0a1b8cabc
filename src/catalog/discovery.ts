/**
 * Documents generated from the catalog for machines and people: the x402 discovery catalog
 * (docs/contract.md#discovery), llms.txt and the human pricing page. Built once at start, after the
 * public URL and payment terms are known.
 */
import { llmsTxtStreams, wellKnownStreams } from './stream-discovery.ts';
import { CATALOG, type EndpointEntry } from './endpoints.ts';
import { formatUsd } from './format-usd.ts';
import { paramType } from './params.ts';

/**
 * One payment option of an endpoint as the documents publish it: an x402 `PaymentRequirements`
 * object, which the payment layer (above the catalog) builds. Named here by the fields the
 * documents read; the whole object is published as given.
 */
export interface PublishedTerms {
  readonly network: string;
  readonly asset: string;
  readonly payTo: string;
}

export interface DiscoveryContext {
  readonly baseUrl: string;
  readonly serviceName: string;
  readonly version: string;
  /** When the terms were last set (the service start). */
  readonly updatedAt: string;
  readonly acceptsFor: (entry: { readonly path: string }) => readonly PublishedTerms[];
  /** The published methodology (OpenAPI `info.x-methodology`, also at /trust/sir). */
  readonly methodology?: Readonly<Record<string, unknown>>;
  /**
   * The x402 extensions an endpoint's entry carries (its 402 references them here: the bazaar
   * declaration with the answer's schema, the signed offers of its `accepts`); absent: none.
   */
  readonly extensionsFor?: (entry: EndpointEntry) => Readonly<Record<string, unknown>>;
}

export interface InputDescription {
  readonly name: string;
  readonly required: boolean;
  readonly type: 'string' | 'number' | 'integer' | 'boolean';
  readonly description: string;
}

/** The discovery `inputs` of an endpoint, from its query schema. */
export function describeInputs(entry: EndpointEntry): InputDescription[] {
  const schema = entry.query as unknown as { properties: Record<string, { description?: string }>; required?: string[] };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, s]) => ({
    name,
    required: required.has(name),
    type: paramType(s as never),
    description: s.description ?? '',
  }));
}

/** The `/.well-known/x402` document exactly in the shape of docs/contract.md#discovery. */
export function buildWellKnown(ctx: DiscoveryContext): object {
  const items = CATALOG.map((e) => ({
    resource: `${ctx.baseUrl}${e.path}`,
    type: 'http',
    x402Version: 2,
    accepts: ctx.acceptsFor(e),
    lastUpdated: ctx.updatedAt,
    description: e.description,
    mimeType: 'application/json',
    metadata: {
      method: 'GET',
      category: e.category,
      tags: e.tags,
      price: formatUsd(e.priceUnits),
      example: e.example,
      inputs: describeInputs(e),
    },
    ...(ctx.extensionsFor ? { extensions: ctx.extensionsFor(e) } : {}),
  }));
  return {
    x402Version: 2,
    provider: ctx.serviceName,
    url: ctx.baseUrl,
    protocol: 'x402',
    count: items.length,
    items,
    resources: items,
    pagination: { limit: 100, offset: 0, total: items.length },
    streams: wellKnownStreams(ctx),
  };
}

/** `/llms.txt`: a plain-text catalog for language-model agents. */
export function buildLlmsTxt(ctx: DiscoveryContext): string {
  const lines = [
    `# ${ctx.serviceName}`,
    '',
    `> Pay-per-call Solana token, wallet and execution intelligence over x402 v2 (scheme exact), USDC on Solana mainnet or Base (eip155:8453); bots making many calls can pay through a payment channel on Base (scheme batch-settlement: one deposit, then a signed voucher per call) where the 402 offers it. No account, no API key. Version ${ctx.version}.`,
    '',
    '## How to call',
    '',
    `1. GET a paid endpoint. Without payment it answers 402 with header PAYMENT-REQUIRED (base64 JSON, x402 v2 PaymentRequired; the body is a short error pointing to /.well-known/x402, which carries each endpoint's signed offers).`,
    '2. Pay one of the `accepts` options with any x402 v2 client and retry the identical request with header PAYMENT-SIGNATURE (or X-PAYMENT).',
    '3. A 200 carries PAYMENT-RESPONSE (settlement) and X-Service-Receipt (base64 JSON receipt, ed25519-signed; verify at /trust/verify).',
    '4. Invalid parameters answer 400 before any payment is asked. You are charged only for a 200.',
    '',
    '## Paid endpoints (GET, JSON)',
    '',
  ];
  for (const e of CATALOG) {
    const inputs = describeInputs(e)
      .map((i) => `${i.name}${i.required ? '' : '?'}: ${i.type}`)
      .join(', ');
    const example = new URLSearchParams(e.example as Record<string, string>).toString();
    lines.push(`- [${e.path}](${ctx.baseUrl}${e.path}?${example}) ${formatUsd(e.priceUnits)} (${e.category}) (${inputs}): ${e.description}`);
  }
  lines.push(
    ...llmsTxtStreams(ctx),
    '',
    '## Free endpoints',
    '',
    `- ${ctx.baseUrl}/.well-known/x402: discovery catalog`,
    `- ${ctx.baseUrl}/openapi.json: OpenAPI 3.1 with x-x402-price`,
    `- ${ctx.baseUrl}/pricing: prices for people`,
    `- ${ctx.baseUrl}/facilitator/supported: payment kinds and signers`,
    `- ${ctx.baseUrl}/.well-known/did.json: the did:web document whose key signs the x402 offers and receipts`,
    `- ${ctx.baseUrl}/health, ${ctx.baseUrl}/uptime: status and metrics`,
    '',
    'Answers state facts with thresholds; values that cannot be determined are "unknown". Not financial advice.',
    '',
  );
  return lines.join('\n');
}

/** Text made safe inside HTML elements and quoted attributes. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `/pricing`: the catalog and prices as a page a person reads. */
export function buildPricingHtml(ctx: DiscoveryContext): string {
  const rows = CATALOG.map((e) => {
    const inputs = describeInputs(e)
      .map((i) => `<code>${escapeHtml(i.name)}</code>${i.required ? '' : ' (optional)'}`)
      .join(', ');
    return `<tr><td><code>${escapeHtml(e.path)}</code></td><td>${formatUsd(e.priceUnits)}</td><td>${escapeHtml(e.category)}</td><td>${inputs}</td><td>${escapeHtml(e.summary)}</td></tr>`;
  }).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(ctx.serviceName)}: pricing</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#111}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.45rem .6rem;text-align:left;vertical-align:top}th{background:#f4f4f4}code{font-size:.92em}</style>
</head><body>
<h1>${escapeHtml(ctx.serviceName)} pricing</h1>
<p>Every paid endpoint is a GET answered in JSON and paid per call in USDC over x402 v2 (scheme <code>exact</code>) on Solana mainnet or Base. No account and no API key: call the endpoint, pay the 402 challenge, retry. Callers making many calls can pay through a payment channel on Base instead (scheme <code>batch-settlement</code>), where the 402 offers it. Invalid parameters are refused before payment, and you are charged only for a 200. Version ${escapeHtml(ctx.version)}.</p>
<table><thead><tr><th>Endpoint</th><th>Price</th><th>Category</th><th>Parameters</th><th>Answers</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<p>Machine-readable: <a href="/.well-known/x402">/.well-known/x402</a>, <a href="/openapi.json">/openapi.json</a>, <a href="/llms.txt">/llms.txt</a>.</p>
</body></html>
`;
}

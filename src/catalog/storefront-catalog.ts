/**
 * The catalog as the storefront shows it: the server-rendered catalog section (prices,
 * categories, summaries, parameters with their rules; readable without JavaScript) and the
 * console's copy of each endpoint's parameter rules, the same rules `validateQuery` applies, so
 * the form asks for what the endpoint accepts.
 */
import { describeInputs, escapeHtml } from './discovery.ts';
import type { Category, ConsoleEndpoint, ConsoleParam } from './console-endpoint.ts';
import { CATALOG, type EndpointEntry } from './endpoints.ts';
import { formatUsd } from './format-usd.ts';
import { enumValues, MAX_MULT, MAX_TRANSACTION_BYTES, type ParamCheck, type TSchema } from './params.ts';

type SchemaFields = {
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  'x-check'?: ParamCheck;
  'x-maxItems'?: number;
};

function ruleText(type: ConsoleParam['type'], s: SchemaFields, values: readonly string[] | null): string {
  const items = s['x-maxItems'];
  const length = s.minLength === s.maxLength ? `${s.minLength}` : `${s.minLength}-${s.maxLength}`;
  const byCheck: Partial<Record<ParamCheck, string>> = {
    address: 'base58 address (32 bytes)',
    signature: 'base58 signature (64 bytes)',
    'address-list': `comma-separated base58 addresses, up to ${items}`,
    'string-list': `comma-separated, up to ${items} distinct`,
    'positive-number-list': `comma-separated decimals above 0 and at most ${MAX_MULT}, up to ${items}`,
    'base64-transaction': `base64 serialized transaction, at most ${MAX_TRANSACTION_BYTES} bytes`,
    'atomic-amount': 'positive whole number of base units (u64)',
    nonblank: `${length} characters, not blank`,
  };
  const check = s['x-check'];
  let rule: string;
  if (check && byCheck[check]) rule = byCheck[check]!;
  else if (values) rule = `one of ${values.join(', ')}`;
  else if (type === 'integer' || type === 'number') rule = `${type === 'integer' ? 'integer' : 'decimal number'} ${s.minimum}-${s.maximum}`;
  else if (type === 'boolean') rule = 'true or false';
  else rule = `${length} characters${s.pattern ? ` matching ${s.pattern}` : ''}`;
  return s.default === undefined ? rule : `${rule}; default ${String(s.default)}`;
}

/** The parameters of an endpoint with their rules, from its query schema. */
export function consoleParams(entry: EndpointEntry): ConsoleParam[] {
  const properties = (entry.query as unknown as { properties: Record<string, TSchema> }).properties;
  return describeInputs(entry).map((input) => {
    const schema = properties[input.name]!;
    const s = schema as SchemaFields;
    const values = enumValues(schema);
    const fields: Record<string, unknown> = {
      minimum: s.minimum,
      maximum: s.maximum,
      minLength: s.minLength,
      maxLength: s.maxLength,
      pattern: s.pattern,
      values: values ?? undefined,
      default: s.default === undefined ? undefined : String(s.default),
      check: s['x-check'],
      maxItems: s['x-maxItems'],
      maxElement: s['x-check'] === 'positive-number-list' ? MAX_MULT : undefined,
    };
    const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    return { ...input, rule: ruleText(input.type, s, values), ...defined };
  });
}

/** Every paid endpoint as the console offers it, in catalog order. */
export function consoleCatalog(): ConsoleEndpoint[] {
  return CATALOG.map((e) => ({
    path: e.path,
    price: formatUsd(e.priceUnits),
    priceUnits: e.priceUnits,
    category: e.category,
    summary: e.summary,
    description: e.description,
    example: e.example,
    params: consoleParams(e),
  }));
}

/** The console catalog as JSON safe inside `<script type="application/json">` (no `<` left to end it). */
export function consoleCatalogJson(): string {
  return JSON.stringify(consoleCatalog()).replace(/</g, '\\u003c');
}

/** `endpoint-v1-batch-token-risk` from `/v1/batch/token-risk`: the id of an endpoint's card. */
export const endpointAnchor = (path: string): string => `endpoint${path.replace(/[^A-Za-z0-9]+/g, '-')}`;

function paramsHtml(entry: EndpointEntry): string {
  const params = consoleParams(entry);
  if (params.length === 0) return '<p>No parameters.</p>';
  const items = params.map(
    (p) =>
      `<dt><code>${escapeHtml(p.name)}</code> <span class="${p.required ? 'req' : 'opt'}">${p.required ? 'required' : 'optional'}</span></dt>` +
      `<dd><span class="rule">${escapeHtml(p.rule)}</span>. ${escapeHtml(p.description)}</dd>`,
  );
  return `<dl class="params">${items.join('')}</dl>`;
}

function endpointHtml(e: EndpointEntry): string {
  const id = endpointAnchor(e.path);
  const example = `${e.path}?${new URLSearchParams(e.example as Record<string, string>).toString()}`;
  return `<article class="endpoint" id="${id}" aria-labelledby="${id}-title">
<div class="endpoint-head"><h4 id="${id}-title"><code>${escapeHtml(e.path)}</code></h4><span class="price">${formatUsd(e.priceUnits)}<span class="visually-hidden"> per call</span></span></div>
<p class="summary">${escapeHtml(e.summary)}</p>
<details><summary>What it answers and its parameters</summary>
<p>${escapeHtml(e.description)}</p>
${paramsHtml(e)}
<p>Example request (answers 402 with the payment terms): <a href="${escapeHtml(example)}"><code>${escapeHtml(example)}</code></a></p>
</details>
<p class="js-only"><a class="try" href="#console" data-endpoint="${escapeHtml(e.path)}">Try it in the console</a></p>
</article>`;
}

const CATEGORY_TITLES: Readonly<Record<Category, string>> = {
  intelligence: 'Token intelligence and decisions',
  execution: 'Execution: simulation, fees, slippage',
  timing: 'Timing: epochs, slots, tips',
  forensics: 'Forensics: holders, wallets, transactions',
  market: 'Market data',
  defi: 'DeFi',
};

/** The catalog section of the storefront: every paid endpoint grouped by category, in catalog order. */
export function catalogSectionHtml(): string {
  const groups = new Map<Category, EndpointEntry[]>();
  for (const e of CATALOG) groups.set(e.category, [...(groups.get(e.category) ?? []), e]);
  return [...groups]
    .map(
      ([category, entries]) =>
        `<section class="category" aria-labelledby="cat-${category}"><h3 id="cat-${category}">${escapeHtml(CATEGORY_TITLES[category])} <span class="category-tag">${category}</span></h3>\n<div class="endpoints">${entries.map(endpointHtml).join('\n')}</div></section>`,
    )
    .join('\n');
}

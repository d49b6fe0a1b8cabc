/**
 * What every paid route's 402 carries beside its terms: the x402 `bazaar` discovery declaration
 * (one for the HTTP route, one for its MCP tool), generated from the catalog (the typed example,
 * the TypeBox schemas the validator and `tools/list` use, the answer's schema) and judged by the
 * official validators before the service starts (or found to be the catalog they accepted); the
 * service metadata of the `resource` object; and the signed offers of the route. An HTTP 402 is
 * paid for in bytes by every call (and echoed in every payment), so it declares the query only;
 * the answer's schema and the signed offers of an HTTP route are referenced: the discovery
 * document carries them (catalogExtensionsOf). An MCP result has no header: it carries everything.
 * A catalog the validators refuse is a ConfigError (exit 2).
 */
import { createHash } from 'node:crypto';
import { CATALOG, type EndpointEntry } from '../catalog/endpoints.ts';
import { paramType, type TSchema } from '../catalog/params.ts';
import { validateQuery } from '../catalog/validate-query.ts';
import { ConfigError } from '../errors.ts';
import { publishedSchema } from '../mcp/tool-arguments.ts';
import { toolNameOf } from '../mcp/paid-tools.ts';
import type { OfferReceipts } from '../x402/delivery/offer-receipts.ts';
import type { ChallengeExtensions, ChallengeTransport } from '../x402/delivery/payment-terms.ts';
import {
  BAZAAR_KEY,
  bazaarProblems,
  bazaarValidatorVersions,
  declareHttpDiscovery,
  declareMcpDiscovery,
  serviceMetadataRules,
  type BazaarDeclaration,
} from '../x402/delivery/x402-extensions.ts';
import { BAZAAR_ACCEPTED_DIGEST } from './bazaar-accepted.ts';

/** Where the service's icon is served (a free route); published as `iconUrl` when the public URL is a public host. */
export const ICON_PATH = '/icon.svg';

/** One route's bazaar declarations. */
export interface RouteDiscovery {
  /** The HTTP 402's: how the route is called, nothing of the answer. */
  readonly http: BazaarDeclaration;
  /** The discovery document's for the HTTP route: the same, with the answer's JSON Schema. */
  readonly catalog: BazaarDeclaration;
  readonly mcp: BazaarDeclaration;
}

/** A plain JSON copy of a TypeBox schema (TypeBox keeps symbol keys for itself). */
const plainJson = (schema: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

/** The example's values as the schemas type them: numbers and booleans as such, the rest (lists too) as sent. */
function typedExample(entry: EndpointEntry): Record<string, unknown> {
  const properties = (entry.query as unknown as { properties: Record<string, TSchema> }).properties;
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(entry.example)) {
    const type = properties[name] ? paramType(properties[name]) : 'string';
    out[name] = type === 'number' || type === 'integer' ? Number(raw) : type === 'boolean' ? raw === 'true' : raw;
  }
  return out;
}

/** The route's declarations, or what keeps them from being published; `judge`: with the official validators' findings. */
export function discoveryOf(entry: EndpointEntry, judge = true): { ok: true; value: RouteDiscovery } | { ok: false; problems: string[] } {
  const checked = validateQuery(entry, new URLSearchParams(entry.example).toString());
  if (!checked.ok) return { ok: false, problems: [`${entry.path}: the catalog example fails the route's own rules: ${checked.error.message}`] };
  const typed = { value: typedExample(entry) };
  const args = publishedSchema(entry.query) as unknown as Record<string, unknown>;
  const outputSchema = plainJson(entry.response);
  const http = declareHttpDiscovery({ example: typed.value, querySchema: args });
  const catalog = declareHttpDiscovery({ example: typed.value, querySchema: args, outputSchema });
  const mcp = declareMcpDiscovery({ toolName: toolNameOf(entry.path), description: entry.summary, inputSchema: args, example: typed.value, outputSchema });
  const problems = [
    ...(judge ? bazaarProblems(http).map((p) => `${entry.path} (bazaar, HTTP): ${p}`) : []),
    ...(judge ? bazaarProblems(catalog).map((p) => `${entry.path} (bazaar, discovery document): ${p}`) : []),
    ...(judge ? bazaarProblems(mcp).map((p) => `${entry.path} (bazaar, MCP tool): ${p}`) : []),
    ...(serviceMetadataRules.tagsKept(entry.tags) ? [] : [`${entry.path}: tags must be at most 5 distinct printable ASCII strings of 1-32 characters`]),
  ];
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: { http, catalog, mcp } };
}

/**
 * The SHA-256 (hex) of every route's declarations, in catalog order, with the versions of the
 * validators that judge them: what `BAZAAR_ACCEPTED_DIGEST` records once the validators accept them.
 */
export function discoveryDigest(declared: ReadonlyMap<string, RouteDiscovery>): string {
  return createHash('sha256')
    .update(JSON.stringify([bazaarValidatorVersions(), [...declared]]))
    .digest('hex');
}

/**
 * Every route's declarations, validated; throws ConfigError naming every problem (the service does
 * not start). The official validators build a JSON Schema engine per declaration (about 2 s of CPU
 * for the catalog's 40): the declarations are code, so the ones they accepted are recorded as a
 * digest (bazaar-accepted.ts, drift-tested) and a catalog whose declarations hash to it is not
 * judged again. Any other catalog, or another version of the validators, is judged in full.
 */
export function declareCatalogDiscovery(serviceName: string, entries: readonly EndpointEntry[] = CATALOG): ReadonlyMap<string, RouteDiscovery> {
  const nameProblems: string[] = serviceMetadataRules.nameValid(serviceName)
    ? []
    : ['--service-name must be 1-32 printable ASCII characters: the x402 bazaar publishes the name as it is'];
  const unjudged = declaredOrProblems(entries, false);
  const accepted = unjudged.problems.length === 0 && discoveryDigest(unjudged.declared) === BAZAAR_ACCEPTED_DIGEST;
  const { declared, problems } = accepted ? unjudged : declaredOrProblems(entries, true);
  if (nameProblems.length + problems.length > 0) throw new ConfigError([...nameProblems, ...problems]);
  return declared;
}

/** The declarations of `entries` and every problem found in them (judged by the validators or not). */
function declaredOrProblems(entries: readonly EndpointEntry[], judge: boolean): { declared: Map<string, RouteDiscovery>; problems: string[] } {
  const declared = new Map<string, RouteDiscovery>();
  const problems: string[] = [];
  for (const entry of entries) {
    const found = discoveryOf(entry, judge);
    if (found.ok) declared.set(entry.path, found.value);
    else problems.push(...found.problems);
  }
  return { declared, problems };
}

export interface RouteExtensionsConfig {
  readonly serviceName: string;
  readonly discovery: ReadonlyMap<string, RouteDiscovery>;
  /** The public base URL (known once the service listens). */
  readonly baseUrl: () => string;
  /** Signed offers; null: the 402s carry none. */
  readonly offers: Pick<OfferReceipts, 'member'> | null;
}

/** The extensions of one route's 402s: its discovery, the service metadata and its current offers. */
export function challengeExtensionsOf(entry: EndpointEntry, config: RouteExtensionsConfig): ChallengeExtensions {
  const declared = config.discovery.get(entry.path)!;
  const bazaar: Record<ChallengeTransport, string> = {
    http: `,${JSON.stringify(BAZAAR_KEY)}:${JSON.stringify(declared.http)}`,
    mcp: `,${JSON.stringify(BAZAAR_KEY)}:${JSON.stringify(declared.mcp)}`,
  };
  const fixedFields = `,"serviceName":${JSON.stringify(config.serviceName)},"tags":${JSON.stringify(entry.tags)}`;
  let fieldsFor = '';
  let fields = fixedFields;
  const members = { http: { offers: '', json: bazaar.http }, mcp: { offers: '', json: bazaar.mcp } };
  return {
    resourceFields() {
      const base = config.baseUrl();
      if (base !== fieldsFor) {
        fieldsFor = base;
        const icon = `${base}${ICON_PATH}`;
        // A loopback or IP-literal base (the embedded default) is no icon a catalog may fetch.
        fields = serviceMetadataRules.iconValid(icon) ? `${fixedFields},"iconUrl":${JSON.stringify(icon)}` : fixedFields;
      }
      return fields;
    },
    members(transport) {
      // An HTTP route's offers are in the discovery document (catalogExtensionsOf), not in its 402.
      const offers = transport === 'mcp' ? (config.offers?.member(entry.path, transport) ?? '') : '';
      const kept = members[transport];
      // The same string while the offers are the same: the challenge's kept bytes stay kept.
      if (offers !== kept.offers) members[transport] = { offers, json: `${bazaar[transport]}${offers}` };
      return members[transport].json;
    },
  };
}

/**
 * The extensions the discovery document publishes for an HTTP route, referenced from its 402 (whose
 * body points at the document): the bazaar declaration with the answer's schema, and the route's
 * current signed offers, one per `accepts` option of the document's entry (none while none is valid).
 */
export function catalogExtensionsOf(entry: EndpointEntry, config: RouteExtensionsConfig): Record<string, unknown> {
  const offers = config.offers?.member(entry.path, 'http') ?? '';
  const signed = offers === '' ? {} : (JSON.parse(`{${offers.slice(1)}}`) as Record<string, unknown>);
  return { [BAZAAR_KEY]: config.discovery.get(entry.path)!.catalog, ...signed };
}

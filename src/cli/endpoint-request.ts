/**
 * A paid call as the command line names it (`/v1/epoch --rate both`), checked against the
 * catalog before anything goes over the network: an unknown path or parameter, or a value the
 * service would refuse, is a usage error that lists what is accepted. The catalog is the one
 * source of paths, prices and parameters; nothing here repeats it.
 */
import { describeInputs } from '../catalog/discovery.ts';
import { CATALOG, CATALOG_BY_PATH, type EndpointEntry } from '../catalog/endpoints.ts';
import { formatUsd } from '../catalog/format-usd.ts';
import { enumValues, type TSchema } from '../catalog/params.ts';
import { parseQueryString, validateQuery } from '../catalog/validate-query.ts';
import { usageError } from './cli-error.ts';

/** A checked request: the catalog entry and the exact path and query to send. */
export interface EndpointRequest {
  readonly entry: EndpointEntry;
  /** `/v1/epoch?rate=both`: the receipt's `resource`. */
  readonly pathAndQuery: string;
  readonly params: ReadonlyMap<string, string>;
}

/** `/v1/epoch`, `v1/epoch` and `epoch` all name /v1/epoch; anything else is null. */
export function findEndpoint(name: string): EndpointEntry | null {
  const path = name.startsWith('/') ? name : name.startsWith('v1/') ? `/${name}` : `/v1/${name}`;
  return CATALOG_BY_PATH.get(path) ?? null;
}

/** One line per parameter of `entry`: `--mint <string, required>  Base58 address ...`. */
export function describeParams(entry: EndpointEntry): string[] {
  const properties = (entry.query as unknown as { properties: Record<string, TSchema & { default?: unknown }> }).properties;
  return describeInputs(entry).map((p) => {
    const schema = properties[p.name]!;
    const values = enumValues(schema);
    const kind = values ? values.join('|') : p.type;
    const extra = [p.required ? 'required' : 'optional', ...(schema.default !== undefined ? [`default ${String(schema.default)}`] : [])];
    return `--${p.name} <${kind}>  (${extra.join(', ')}) ${p.description}`;
  });
}

/** The endpoint list for an unknown-path message. */
function knownPaths(): string {
  return CATALOG.map((e) => `${e.path} (${formatUsd(e.priceUnits)})`).join(', ');
}

/** Merges the query written into the path (`/v1/epoch?rate=both`) with the options; a parameter given twice is refused. */
function mergeParams(inline: string, params: ReadonlyMap<string, string>): Map<string, string> {
  const parsed = parseQueryString(inline);
  if (!parsed.ok) throw usageError(parsed.error.message, { param: parsed.error.param });
  const merged = new Map(parsed.params);
  for (const [name, value] of params) {
    if (merged.has(name)) throw usageError(`parameter "${name}" is given more than once`, { param: name });
    merged.set(name, value);
  }
  return merged;
}

/** The command whose options are not endpoint parameters, named in an unknown parameter's message (a mistyped option lands there). */
export interface OwnOptions {
  readonly command: string;
  readonly options: readonly string[];
}

/**
 * Checks `pathArg` and `params` against the catalog the way the service will (validateQuery), so a
 * request the service would refuse never leaves this machine; throws a usage error otherwise.
 */
export function buildEndpointRequest(pathArg: string, params: ReadonlyMap<string, string>, own?: OwnOptions): EndpointRequest {
  const [name = '', inline = ''] = pathArg.split(/\?(.*)/s);
  const entry = findEndpoint(name);
  if (!entry) throw usageError(`unknown endpoint "${name.slice(0, 80)}"; the paid endpoints: ${knownPaths()}`);
  const merged = mergeParams(inline, params);
  const accepted = new Set(describeInputs(entry).map((p) => p.name));
  for (const param of merged.keys()) {
    if (!accepted.has(param)) {
      const list = describeParams(entry);
      const ownList = own ? `\n${own.command}'s own options: ${own.options.map((o) => `--${o}`).join(', ')}` : '';
      const accepted = list.length > 0 ? `its parameters:\n  ${list.join('\n  ')}` : 'it takes none';
      throw usageError(`${entry.path} has no parameter "${param}"; ${accepted}${ownList}`, { param });
    }
  }
  const query = new URLSearchParams([...merged]).toString();
  const checked = validateQuery(entry, query);
  if (!checked.ok) throw usageError(`${entry.path}: ${checked.error.message}`, { param: checked.error.param });
  return { entry, pathAndQuery: query ? `${entry.path}?${query}` : entry.path, params: merged };
}

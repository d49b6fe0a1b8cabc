/**
 * Tool arguments to query strings. A tool of this service is an HTTP endpoint underneath, whose
 * rules (docs/contract.md#parameters) are written for query values; JSON arguments become those
 * values (strings, numbers and booleans as their text) and are judged by the very validation HTTP
 * uses, so a tool refuses exactly what the endpoint refuses, with the same reasons.
 */
import { paramType, type TSchema } from '../catalog/params.ts';
import { unknownParameter, type QueryError } from '../catalog/validate-query.ts';
import type { ArgumentsSchema } from './tool-result.ts';

export type QueryOfArguments = { readonly ok: true; readonly query: string } | { readonly ok: false; readonly error: QueryError };

/**
 * The query of the arguments the schema defines, in the schema's order; an argument the schema
 * does not define is refused as HTTP refuses such a parameter; `null` counts as absent. The order
 * makes it canonical: the same arguments are the same query, whatever order the client sent them in.
 */
export function argumentsToQuery(schema: ArgumentsSchema, args: Readonly<Record<string, unknown>>): QueryOfArguments {
  const given = new Map(Object.keys(args).map((name) => [name, '']));
  const unknown = unknownParameter(given, Object.keys(schema.properties));
  if (unknown) return { ok: false, error: unknown };
  const params = new URLSearchParams();
  for (const [name, property] of Object.entries(schema.properties)) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      return { ok: false, error: { error: 'invalid_parameter', param: name, message: `${name} must be of type ${paramType(property as unknown as TSchema)}` } };
    params.append(name, String(value));
  }
  return { ok: true, query: params.toString() };
}

/** A JSON copy of a catalog schema for `tools/list`, without the `x-` annotations only our validation reads. */
export function publishedSchema(schema: TSchema): ArgumentsSchema {
  const published = JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key.startsWith('x-') ? undefined : value))) as ArgumentsSchema;
  // Arguments the tool does not define are refused (argumentsToQuery), and the schema says so.
  return { ...published, additionalProperties: false };
}

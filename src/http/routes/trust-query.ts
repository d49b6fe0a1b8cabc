/**
 * Query parameters of the free trust endpoints: integers in a range, never clamped
 * (docs/contract.md#parameters), answered as data so a handler turns a problem straight into its
 * 400.
 */
import { parseQueryString, unknownParameter } from '../../catalog/validate-query.ts';
import { errorReply, type HttpReply } from '../../errors.ts';
import type { AnyReply, HttpRequestData, Route } from '../server/route.ts';

const INTEGER_RE = /^(?:0|[1-9][0-9]{0,15})$/;

/** The parameters of a query, or the 400 reply for a malformed (e.g. repeated) one or one not in `accepted`. */
export function queryParams(query: string, accepted: readonly string[]): { ok: true; params: Map<string, string> } | { ok: false; reply: HttpReply } {
  const parsed = parseQueryString(query);
  if (!parsed.ok) return { ok: false, reply: errorReply(parsed.error) };
  const unknown = unknownParameter(parsed.params, accepted);
  return unknown ? { ok: false, reply: errorReply(unknown) } : parsed;
}

/** A route that takes no parameters: any query is answered with the 400 naming its first parameter. */
export function parameterless<R extends Route<AnyReply>>(route: R): R {
  const handler = route.handler;
  return {
    ...route,
    handler: (req: HttpRequestData) => {
      if (req.query === '') return handler(req);
      const q = queryParams(req.query, []);
      return q.ok ? handler(req) : q.reply;
    },
  };
}

/** Bounds of an integer parameter; absent parameters take `fallback` (or are missing when none). */
export interface IntRange {
  readonly min: number;
  readonly max: number;
  readonly fallback?: number;
}

/** The integer value of `name` in `min..max`, or the 400 reply naming the parameter. */
export function intParam(params: ReadonlyMap<string, string>, name: string, range: IntRange): { ok: true; value: number } | { ok: false; reply: HttpReply } {
  const raw = params.get(name);
  if (raw === undefined) {
    if (range.fallback !== undefined) return { ok: true, value: range.fallback };
    return { ok: false, reply: errorReply({ error: 'missing_parameter', param: name, message: `${name} is required` }) };
  }
  const value = Number(raw);
  if (!INTEGER_RE.test(raw) || value < range.min || value > range.max) {
    const bounds = range.max === Number.MAX_SAFE_INTEGER ? `>= ${range.min}` : `${range.min}-${range.max}`;
    return { ok: false, reply: errorReply({ error: 'invalid_parameter', param: name, message: `${name} must be an integer ${bounds}` }) };
  }
  return { ok: true, value };
}

/** The value of an enumerated parameter, `fallback` when absent, or the 400 reply. */
export function enumParam<T extends string>(
  params: ReadonlyMap<string, string>,
  name: string,
  values: readonly T[],
  fallback: T,
): { ok: true; value: T } | { ok: false; reply: HttpReply } {
  const raw = params.get(name);
  if (raw === undefined) return { ok: true, value: fallback };
  if ((values as readonly string[]).includes(raw)) return { ok: true, value: raw as T };
  return { ok: false, reply: errorReply({ error: 'invalid_parameter', param: name, message: `${name} must be one of ${values.join(', ')}` }) };
}

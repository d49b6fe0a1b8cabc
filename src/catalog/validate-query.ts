/**
 * Validates a raw query string against a catalog entry's TypeBox schema plus its `x-check`
 * rules. Runs before any payment challenge (nobody pays for a request that cannot succeed).
 * Returns data, never throws: `{ ok: true, value }` or `{ ok: false, error }` naming the parameter.
 */
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';
import { isBase58OfLength } from '../chain/solana/base58.ts';
import type { ErrorBody } from '../errors.ts';
import type { EndpointEntry } from './endpoints.ts';
import { enumValues, MAX_MULT, MAX_TRANSACTION_BYTES, paramType, type ParamCheck, type TSchema } from './params.ts';

/** Why a query is refused: a parameter error naming the parameter. */
export type QueryError = ErrorBody<'invalid_parameter' | 'missing_parameter' | 'repeated_parameter' | 'unknown_parameter'>;

export type QueryResult = { readonly ok: true; readonly value: Readonly<Record<string, unknown>> } | { readonly ok: false; readonly error: QueryError };

/** Longest query string accepted, bytes (the longest legitimate one, 128 addresses, is ~5.8 kB). */
export const MAX_QUERY_BYTES = 8192;

const INTEGER_RE = /^-?[0-9]+$/;
const DECIMAL_RE = /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point of this pattern
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

const invalid = (param: string, message: string): QueryResult => ({ ok: false, error: { error: 'invalid_parameter', param, message } });

/** Splits a raw query into a map; a repeated name is an error (its meaning would be ambiguous). */
export function parseQueryString(query: string): { ok: true; params: Map<string, string> } | { ok: false; error: QueryError } {
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(query)) {
    if (params.has(name)) {
      return { ok: false, error: { error: 'repeated_parameter', param: name, message: `parameter "${name}" is given more than once` } };
    }
    params.set(name, value);
  }
  return { ok: true, params };
}

/**
 * The error for the first parameter not in `accepted`, or null. Unknown parameters are refused,
 * not ignored: a misspelt optional parameter (a firewall rule, a slippage bound) would otherwise
 * be dropped in silence and the caller would act on an answer to a question it did not ask.
 */
export function unknownParameter(params: ReadonlyMap<string, string>, accepted: readonly string[]): QueryError | null {
  for (const name of params.keys()) {
    if (accepted.includes(name)) continue;
    const known = accepted.length === 0 ? 'this endpoint takes no parameters' : `accepted: ${accepted.join(', ')}`;
    return { error: 'unknown_parameter', param: name.slice(0, 64), message: `"${name.slice(0, 64)}" is not a parameter of this endpoint; ${known}` };
  }
  return null;
}

function checkList(name: string, raw: string, schema: TSchema, check: ParamCheck): { ok: true; value: unknown } | { ok: false; result: QueryResult } {
  const sent = raw.split(',').map((s) => s.trim());
  const items = [...new Set(sent)];
  const max = (schema as { 'x-maxItems'?: number })['x-maxItems'] ?? Infinity;
  if (items.some((s) => s === '')) return { ok: false, result: invalid(name, `${name} has an empty element`) };
  if (items.length > max) return { ok: false, result: invalid(name, `${name} has ${items.length} distinct elements; at most ${max} are allowed`) };
  if (check === 'address-list') {
    const bad = items.find((s) => !isBase58OfLength(s, 32));
    if (bad !== undefined) return { ok: false, result: invalid(name, `${name} element "${bad.slice(0, 64)}" is not a base58 address of 32 bytes`) };
  }
  if (check === 'positive-number-list') {
    const nums = items.map((s) => (DECIMAL_RE.test(s) ? Number(s) : NaN));
    const badIndex = nums.findIndex((n) => !(n > 0 && n <= MAX_MULT));
    if (badIndex >= 0)
      return {
        ok: false,
        result: invalid(name, `${name} element "${items[badIndex]!.slice(0, 32)}" must be a decimal greater than 0 and at most ${MAX_MULT}`),
      };
    return { ok: true, value: nums };
  }
  // A plain list keeps what was sent, duplicates included: the answer reports how many elements
  // the caller sent beside how many distinct ones were evaluated (the limit counts distinct ones).
  return { ok: true, value: check === 'string-list' ? sent : items };
}

function checkBase64Transaction(name: string, raw: string): QueryResult | null {
  if (raw.length % 4 !== 0) return invalid(name, `${name} is not padded base64`);
  const bytes = Buffer.from(raw, 'base64');
  if (bytes.length > MAX_TRANSACTION_BYTES) return invalid(name, `${name} decodes to ${bytes.length} bytes; a transaction is at most ${MAX_TRANSACTION_BYTES}`);
  return null;
}

/** Applies the non-JSON-Schema rule of one parameter; returns the final value or an error. */
function applyCheck(name: string, schema: TSchema, raw: string, converted: unknown): { ok: true; value: unknown } | { ok: false; result: QueryResult } {
  const check = (schema as { 'x-check'?: ParamCheck })['x-check'];
  switch (check) {
    case 'address':
      return isBase58OfLength(raw, 32) ? { ok: true, value: raw } : { ok: false, result: invalid(name, `${name} is not a base58 address of 32 bytes`) };
    case 'signature':
      return isBase58OfLength(raw, 64) ? { ok: true, value: raw } : { ok: false, result: invalid(name, `${name} is not a base58 signature of 64 bytes`) };
    case 'address-list':
    case 'string-list':
    case 'positive-number-list':
      return checkList(name, raw, schema, check);
    case 'base64-transaction': {
      const bad = checkBase64Transaction(name, raw);
      return bad ? { ok: false, result: bad } : { ok: true, value: raw };
    }
    case 'nonblank':
      if (raw.trim() === '' || CONTROL_RE.test(raw)) return { ok: false, result: invalid(name, `${name} must be a single non-blank line of text`) };
      return { ok: true, value: raw };
    case 'atomic-amount':
      return BigInt(raw) <= 0xffff_ffff_ffff_ffffn ? { ok: true, value: raw } : { ok: false, result: invalid(name, `${name} exceeds the u64 range`) };
    default:
      return { ok: true, value: converted };
  }
}

/** `firstKeyword` is asked only when the message depends on it: listing a value's errors is not free. */
function describeError(name: string, schema: TSchema, firstKeyword: () => string, raw: string): string {
  const s = schema as { minimum?: number; maximum?: number; minLength?: number; maxLength?: number };
  const check = (schema as { 'x-check'?: ParamCheck })['x-check'];
  if (check === 'address') return `${name} is not a base58 address of 32 bytes`;
  if (check === 'signature') return `${name} is not a base58 signature of 64 bytes`;
  const values = enumValues(schema);
  if (values) return `${name} must be one of ${values.join(', ')}; got "${raw.slice(0, 32)}"`;
  const keyword = firstKeyword();
  if (keyword === 'minimum' || keyword === 'maximum') return `${name} must be between ${s.minimum} and ${s.maximum}; got ${raw.slice(0, 32)}`;
  if (keyword === 'minLength' || keyword === 'maxLength') return `${name} must be ${s.minLength}-${s.maxLength} characters long`;
  if (keyword === 'type') return `${name} must be of type ${paramType(schema)}`;
  return `${name} is not well-formed`;
}

/** Type-checks the raw text of a number, integer or boolean parameter before conversion. */
function rawTypeProblem(name: string, schema: TSchema, raw: string): string | null {
  const type = paramType(schema);
  if (type === 'integer' && !INTEGER_RE.test(raw)) return `${name} must be an integer; got "${raw.slice(0, 32)}"`;
  if (type === 'number' && !DECIMAL_RE.test(raw)) return `${name} must be a plain decimal number; got "${raw.slice(0, 32)}"`;
  if (type === 'boolean' && raw !== 'true' && raw !== 'false') return `${name} must be true or false; got "${raw.slice(0, 32)}"`;
  return null;
}

interface CompiledQuery {
  readonly names: readonly string[];
  readonly properties: ReadonlyArray<readonly [string, TSchema, boolean]>;
  /** Null when `value` passes the parameter's schema, else how to find the first failing keyword. */
  readonly check: (name: string, schema: TSchema, value: unknown) => (() => string) | null;
}

const compiled = new WeakMap<TSchema, CompiledQuery>();

function compileQuery(query: TSchema): CompiledQuery {
  const cached = compiled.get(query);
  if (cached) return cached;
  const props = (query as { properties: Record<string, TSchema>; required?: string[] }).properties;
  const required = new Set((query as { required?: string[] }).required ?? []);
  const validators = new Map(Object.entries(props).map(([name, schema]) => [name, Compile(schema)]));
  const result: CompiledQuery = {
    names: Object.keys(props),
    properties: Object.entries(props).map(([name, schema]) => [name, schema, required.has(name)] as const),
    check(name, _schema, value) {
      const v = validators.get(name)!;
      if (v.Check(value)) return null;
      return () => [...v.Errors(value)][0]?.keyword ?? 'type';
    },
  };
  compiled.set(query, result);
  return result;
}

/**
 * Form decoding turns an unescaped `+` into a space; base64 has no spaces, so for a base64
 * transaction a space can only be a `+` the client did not percent-encode.
 */
function rawValue(raw: string | undefined, schema: TSchema): string | undefined {
  if (raw === undefined || (schema as { 'x-check'?: ParamCheck })['x-check'] !== 'base64-transaction') return raw;
  return raw.replaceAll(' ', '+');
}

/** Validates and converts the query of a paid request; a parameter the endpoint does not define is refused. */
export function validateQuery(entry: EndpointEntry, rawQuery: string): QueryResult {
  if (rawQuery.length > MAX_QUERY_BYTES)
    return { ok: false, error: { error: 'invalid_parameter', param: '*', message: `query string exceeds ${MAX_QUERY_BYTES} bytes` } };
  const parsed = parseQueryString(rawQuery);
  if (!parsed.ok) return parsed;
  const q = compileQuery(entry.query);
  const unknown = unknownParameter(parsed.params, q.names);
  if (unknown) return { ok: false, error: unknown };
  const out: Record<string, unknown> = {};
  for (const [name, schema, required] of q.properties) {
    const raw = rawValue(parsed.params.get(name), schema);
    if (raw === undefined) {
      if (required) return { ok: false, error: { error: 'missing_parameter', param: name, message: `${name} is required` } };
      const def = (schema as { default?: unknown }).default;
      if (def === undefined) continue;
      const applied = applyCheck(name, schema, String(def), def);
      if (applied.ok) out[name] = applied.value;
      continue;
    }
    const typeProblem = rawTypeProblem(name, schema, raw);
    if (typeProblem) return invalid(name, typeProblem);
    const converted = Value.Convert(schema, raw);
    const failed = q.check(name, schema, converted);
    if (failed) return invalid(name, describeError(name, schema, failed, raw));
    const applied = applyCheck(name, schema, raw, converted);
    if (!applied.ok) return applied.result;
    out[name] = applied.value;
  }
  return { ok: true, value: out };
}

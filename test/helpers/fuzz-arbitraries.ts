/**
 * Generators of hostile input for the fuzz suite, derived from the catalog so a new endpoint or
 * parameter is fuzzed without a line here: query strings (valid, boundary and hostile values,
 * unknown and repeated names, raw percent garbage), payment headers (random, JSON of any shape,
 * a real payment mutated) and MCP tool arguments.
 */
import fc from 'fast-check';
import type { EndpointEntry } from '../../src/catalog/endpoints.ts';

/** The seed of every property: fixed so CI is repeatable; FUZZ_SEED explores another part of the space. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261124);

type Schema = { minimum?: number; maximum?: number; minLength?: number; maxLength?: number; enum?: string[]; anyOf?: { const?: string }[]; type?: string };

const HOSTILE = fc.constantFrom(
  '',
  ' ',
  '-1',
  '0',
  '1e309',
  'NaN',
  'Infinity',
  '0x10',
  '%00',
  '\u0000',
  '\n',
  '../../etc/passwd',
  '<script>',
  "'; drop",
  '🦀'.repeat(40),
  'true',
  'null',
  '[]',
  '{}',
  '1,2,,3',
  ','.repeat(50),
);

/** Values around a schema's bounds. */
function boundaries(s: Schema): string[] {
  const out: string[] = [];
  for (const n of [s.minimum, s.maximum]) if (n !== undefined) out.push(String(n - 1), String(n), String(n + 1), String(n + 0.5));
  for (const n of [s.minLength, s.maxLength]) if (n !== undefined) for (const len of [n - 1, n, n + 1]) if (len >= 0) out.push('1'.repeat(len));
  for (const option of s.enum ?? s.anyOf?.map((a) => a.const ?? '') ?? []) out.push(option, option.toUpperCase(), `${option} `);
  return out;
}

/** One parameter's value: the catalog example, a boundary, hostile text or any string. */
function paramValue(name: string, schema: Schema, example: Readonly<Record<string, string>>): fc.Arbitrary<string> {
  const known = [example[name] ?? 'x', ...boundaries(schema)];
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: HOSTILE },
    { weight: 2, arbitrary: fc.string({ maxLength: 64 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
    { weight: 1, arbitrary: fc.string({ minLength: 1000, maxLength: 9000 }) },
  );
}

/** A whole query string for `entry`: each parameter present or not, plus unknown, repeated and raw parts. */
export function queryFor(entry: EndpointEntry): fc.Arbitrary<string> {
  const props = (entry.query as unknown as { properties: Record<string, Schema> }).properties;
  const parts = Object.entries(props).map(([name, schema]) =>
    fc.option(paramValue(name, schema, entry.example), { nil: undefined }).map((v) => (v === undefined ? [] : [[name, v] as const])),
  );
  const extra = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...Object.keys(props), 'utm', ''), fc.string({ maxLength: 12 })), fc.string({ maxLength: 20 })), {
    maxLength: 2,
  });
  const raw = fc.option(fc.constantFrom('%', '%zz', '&&', '=', '==', '%E0%A4%A', '+'), { nil: '' });
  return fc.tuple(fc.tuple(...parts), extra, raw).map(([fields, more, rawPart]) => {
    const pairs = [...fields.flat(), ...more];
    const encoded = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    return rawPart ? `${encoded}&${rawPart}` : encoded;
  });
}

/** Base64 of `text`. */
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** A payment header value: garbage, JSON of any shape, or a real payment mutated in one place. */
export function paymentHeaderFrom(valid: string): fc.Arbitrary<string> {
  const decoded = JSON.parse(Buffer.from(valid, 'base64').toString('utf8')) as Record<string, unknown>;
  const mutatedField = fc
    .tuple(fc.constantFrom(...Object.keys(decoded)), fc.jsonValue())
    .map(([key, value]) => b64(JSON.stringify({ ...decoded, [key]: value })));
  const flipped = fc
    .nat({ max: valid.length - 1 })
    .chain((at) => fc.constantFrom('A', '/', '+', '=', '_').map((c) => `${valid.slice(0, at)}${c}${valid.slice(at + 1)}`));
  return fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.base64String({ maxLength: 400 }),
    fc.jsonValue().map((v) => b64(JSON.stringify(v))),
    mutatedField,
    flipped,
    fc.constant(valid.slice(0, Math.floor(valid.length / 2))),
    fc.constant('A'.repeat(20_000)),
  );
}

/** Sets `path` in a copy of `root` (objects along the path copied, the rest shared). */
function setAt(root: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const [key, ...rest] = path;
  if (key === undefined) return root;
  const inner = root[key];
  return {
    ...root,
    [key]: rest.length === 0 ? value : setAt(typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : {}, rest, value),
  };
}

/**
 * A payment header whose payload is mutated deep inside: one field of `payload`, or of an object
 * in it (a channel payment's `channelConfig`, `voucher`, `deposit`), set to any JSON or a hostile
 * string, or deleted. Alongside `paymentHeaderFrom`, for payments whose checks are in nested fields.
 */
export function nestedPaymentHeaderFrom(valid: string): fc.Arbitrary<string> {
  const decoded = JSON.parse(Buffer.from(valid, 'base64').toString('utf8')) as Record<string, unknown>;
  const payload = decoded.payload as Record<string, unknown>;
  const paths: string[][] = [];
  for (const [key, value] of Object.entries(payload)) {
    paths.push(['payload', key]);
    if (typeof value === 'object' && value !== null) for (const inner of Object.keys(value)) paths.push(['payload', key, inner]);
  }
  const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), HOSTILE, fc.constant(undefined));
  return fc.tuple(fc.constantFrom(...paths), value).map(([path, v]) => b64(JSON.stringify(setAt(decoded, path, v))));
}

/** MCP tool arguments: the tool's own names with any JSON, and names it does not have. */
export function toolArguments(names: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const key = fc.oneof(fc.constantFrom(...(names.length ? names : ['x'])), fc.string({ maxLength: 10 }));
  return fc.dictionary(key, fc.oneof(fc.jsonValue({ maxDepth: 2 }), HOSTILE), { maxKeys: 4 });
}

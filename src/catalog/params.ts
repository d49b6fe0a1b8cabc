/**
 * Query parameter builders for the catalog. Each returns a TypeBox schema (which becomes the
 * OpenAPI parameter schema, the discovery `inputs` and the MCP tool's argument schema) carrying an
 * `x-check` annotation for the rules JSON Schema cannot express (base58 that decodes to 32
 * bytes, comma lists with a count limit, strict base64). `validateQuery` enforces both.
 */
import Type, { type TSchema } from 'typebox';
import type { ParamCheck } from './console-endpoint.ts';

export type { ParamCheck };

const BASE58_RE = '^[1-9A-HJ-NP-Za-km-z]+$';
/** Largest serialized Solana transaction (packet data size), bytes. */
export const MAX_TRANSACTION_BYTES = 1232;
/** Largest multiplier accepted in `mults`: 10,000x the base size. */
export const MAX_MULT = 10_000;

type Common = {
  readonly description: string;
};

/** A base58 Solana address (32 bytes once decoded). */
export function address(o: Common) {
  return Type.String({ ...o, minLength: 32, maxLength: 44, pattern: BASE58_RE, 'x-check': 'address' satisfies ParamCheck });
}

/** A base58 transaction signature (64 bytes once decoded). */
export function signature(o: Common) {
  return Type.String({ ...o, minLength: 64, maxLength: 88, pattern: BASE58_RE, 'x-check': 'signature' satisfies ParamCheck });
}

/** Comma-separated addresses, each checked, duplicates removed, at most `maxItems` distinct. */
export function addressList(o: Common & { readonly maxItems: number }) {
  return Type.String({ description: o.description, minLength: 1, 'x-maxItems': o.maxItems, 'x-check': 'address-list' satisfies ParamCheck });
}

/** Comma-separated strings, duplicates removed, at most `maxItems`; elements judged by the handler. */
export function stringList(o: Common & { readonly maxItems: number }) {
  return Type.String({ description: o.description, minLength: 1, 'x-maxItems': o.maxItems, 'x-check': 'string-list' satisfies ParamCheck });
}

/** Comma-separated positive decimals, at most `maxItems`. */
export function positiveNumberList(o: Common & { readonly maxItems: number; readonly default: string }) {
  return Type.String({ ...o, minLength: 1, 'x-maxItems': o.maxItems, 'x-check': 'positive-number-list' satisfies ParamCheck });
}

/** A positive integer amount in base units, as a decimal string (u64 range). */
export function atomicAmount(o: Common) {
  return Type.String({ ...o, minLength: 1, maxLength: 20, pattern: '^[1-9][0-9]*$', 'x-check': 'atomic-amount' satisfies ParamCheck });
}

/** A base64 serialized transaction. */
export function base64Transaction(o: Common) {
  return Type.String({
    ...o,
    minLength: 4,
    maxLength: Math.ceil(MAX_TRANSACTION_BYTES / 3) * 4,
    pattern: '^[A-Za-z0-9+/]+={0,2}$',
    'x-check': 'base64-transaction' satisfies ParamCheck,
  });
}

/** A free-text string with a length range that must not be blank. */
export function text(o: Common & { readonly minLength: number; readonly maxLength: number; readonly default?: string; readonly pattern?: string }) {
  return Type.String({ ...o, 'x-check': 'nonblank' satisfies ParamCheck });
}

/** A plain string with a pattern. */
export function patterned(o: Common & { readonly pattern: string; readonly minLength: number; readonly maxLength: number }) {
  return Type.String(o);
}

export function integer(o: Common & { readonly minimum: number; readonly maximum: number; readonly default?: number }) {
  return Type.Integer(o);
}

export function decimalNumber(o: Common & { readonly minimum: number; readonly maximum: number }) {
  return Type.Number(o);
}

export function boolean(o: Common & { readonly default?: boolean }) {
  return Type.Boolean(o);
}

export function oneOf<const T extends readonly string[]>(values: T, o: Common & { readonly default?: T[number] }) {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    o,
  );
}

/** The enum values of a `oneOf` schema, or null for other schemas. */
export function enumValues(schema: TSchema): string[] | null {
  const anyOf = (schema as { anyOf?: { const?: unknown }[] }).anyOf;
  if (!Array.isArray(anyOf)) return null;
  return anyOf.map((s) => String(s.const));
}

/** The JSON type a query parameter is declared with: string, number, integer or boolean. */
export function paramType(schema: TSchema): 'string' | 'number' | 'integer' | 'boolean' {
  const t = (schema as { type?: string }).type;
  if (t === 'number' || t === 'integer' || t === 'boolean') return t;
  return 'string';
}

export { Type, type TSchema };

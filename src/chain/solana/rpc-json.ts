/**
 * The JSON of Solana RPC messages as kit reads and writes it: every integer of an answer is a
 * bigint (u64 fields such as lamports and slots exceed 2^53, and kit's response transformers turn
 * back to numbers only the paths they know), a number with a fraction or a negative exponent stays
 * a number; a bigint of a request is written as a bare JSON integer.
 */

/** A JSON string (skipped whole, escapes included) or a JSON number, outside strings. */
const STRING_OR_NUMBER = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
/** The marker object an integer is wrapped in before JSON.parse; kit's own parser uses the same shape. */
const BIGINT_KEY = '$n';
const INTEGER_PARTS = /^(-?\d+)(?:[eE]\+?(\d+))?$/;
/** An exponent this large is no RPC value; refused rather than allocated. */
const MAX_EXPONENT = 1000;
/** A bigint of a request, marked by the replacer so that the text can carry it unquoted. */
const BIGINT_MARK = /"\\u0000bigint:(-?\d+)"/g;

function wrapInteger(token: string): string {
  if (token.charCodeAt(0) === 0x22 || token.includes('.') || /[eE]-/.test(token)) return token;
  return `{"${BIGINT_KEY}":"${token}"}`;
}

function toBigInt(text: string): bigint {
  const parts = INTEGER_PARTS.exec(text);
  const exponent = parts?.[2] === undefined ? 0 : Number(parts[2]);
  if (!parts || exponent > MAX_EXPONENT) throw new SyntaxError(`malformed integer in RPC answer: ${text}`);
  return exponent === 0 ? BigInt(parts[1]!) : BigInt(parts[1]!) * 10n ** BigInt(exponent);
}

function revive(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const marked = (value as Record<string, unknown>)[BIGINT_KEY];
  return typeof marked === 'string' ? toBigInt(marked) : value;
}

/** Parses an RPC answer with every integer as a bigint (kit's `parseJsonWithBigInts` semantics). */
export function parseRpcJson(text: string): unknown {
  return JSON.parse(text.replace(STRING_OR_NUMBER, wrapInteger), revive);
}

/** Writes an RPC request; bigints become bare JSON integers (kit's `stringifyJsonWithBigInts`). */
export function stringifyRpcJson(value: unknown): string {
  let marked = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    marked = true;
    return `\u0000bigint:${v}`;
  });
  return marked ? text.replace(BIGINT_MARK, '$1') : text;
}

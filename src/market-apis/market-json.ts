/**
 * Readers for market-source JSON: the sources send numbers as decimal strings or numbers and
 * leave fields null or absent when they have no value. Each reader returns null for "no value"
 * so callers map it to `unknown` instead of guessing.
 */

/** A finite number from a number or a decimal string; null for null, absent, blank or garbage. */
export function readNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string' || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** An unsigned integer amount in base units from a decimal string or safe integer; null otherwise. */
export function readAmount(v: unknown): bigint | null {
  if (typeof v === 'string' && /^[0-9]+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return null;
}

/** A non-empty string, or null. */
export function readString(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

/** A plain object, or null. */
export function readObject(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** An integer, or null. */
export function readInteger(v: unknown): number | null {
  const n = readNumber(v);
  return n !== null && Number.isInteger(n) ? n : null;
}

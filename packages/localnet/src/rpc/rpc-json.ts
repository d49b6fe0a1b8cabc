/**
 * JSON serialization for the localnet RPC: Agave prints u64 values as bare JSON numbers, even
 * above 2^53 (rentEpoch is u64::MAX), so bigints are written as raw number literals.
 */

/** A marker unlikely in real data; bigints pass through it on their way to raw digits. */
const BIGINT_MARKER = '\u0000bigint:';
const MARKER_RE = /"\\u0000bigint:(-?\d+)"/g;

/** JSON.stringify with bigints as bare numbers. */
export function stringifyRpcJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${BIGINT_MARKER}${v.toString()}` : v));
  return text.replace(MARKER_RE, '$1');
}

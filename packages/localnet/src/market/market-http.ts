/**
 * Small node:http helpers shared by the market stand-ins: one JSON reply function and the parsed
 * request shape the per-service handlers receive.
 */
import type { ServerResponse } from 'node:http';

/** A reply a handler returns; the server writes it. */
export interface JsonReply {
  readonly status: number;
  readonly body: unknown;
}

/** What a handler sees of a request: the decoded path segments and the query. */
export interface MarketRequest {
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  /** Unix seconds at which the request is answered. */
  readonly nowSec: number;
}

/** Builds a reply. */
export function reply(status: number, body: unknown): JsonReply {
  return { status, body };
}

/** Writes `r` as JSON; bigints never reach here (handlers render amounts as strings). */
export function writeJson(res: ServerResponse, r: JsonReply): void {
  const text = JSON.stringify(r.body);
  res.writeHead(r.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

/** Strict unsigned integer parse for query values ("12", not "12.0", "1e3" or " 12"). */
export function parseUint(value: string): bigint | null {
  return /^[0-9]+$/.test(value) ? BigInt(value) : null;
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Length in bytes of a base58 string's decoding, or null when it is not base58. */
export function base58ByteLength(value: string): number | null {
  if (value.length === 0 || value.length > 90) return null;
  let n = 0n;
  for (const ch of value) {
    const digit = BASE58_ALPHABET.indexOf(ch);
    if (digit === -1) return null;
    n = n * 58n + BigInt(digit);
  }
  const leadingZeros = value.length - value.replace(/^1+/, '').length;
  const body = n === 0n ? 0 : Math.ceil(n.toString(16).length / 2);
  return leadingZeros + body;
}

/** True for a base58 string decoding to exactly 32 bytes (a Solana address). */
export function isAddress(value: string): boolean {
  return base58ByteLength(value) === 32;
}

/** Significant digits kept when rendering floating values (prices, USD) as decimal strings. */
export const PRICE_SIGNIFICANT_DIGITS = 15;

/** Renders a number as a plain decimal string (never exponent notation), trailing zeros cut. */
export function decimalString(n: number, significant: number = PRICE_SIGNIFICANT_DIGITS): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  if (n === 0) return '0';
  // toFixed switches to exponent notation from 1e21; such doubles are integers, so BigInt is exact.
  if (Math.abs(n) >= 1e21) return BigInt(n).toString();
  const exp = Math.floor(Math.log10(Math.abs(n)));
  const decimals = Math.min(100, Math.max(0, significant - 1 - exp));
  const fixed = n.toFixed(decimals);
  const trimmed = fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
  return trimmed === '-0' ? '0' : trimmed;
}

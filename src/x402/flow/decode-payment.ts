/**
 * Reads an x402 v2 payment from request headers (`PAYMENT-SIGNATURE`, or `X-PAYMENT` as older
 * clients send it) or from an MCP tool call's `_meta`, and checks that the terms it accepted are
 * exactly one of the route's. Pure and cheap: signature checks and settlement happen later, in the
 * pool and the settler. Of a header only `x402Version`, `accepted`, `payload` and the
 * `payment-identifier` extension are parsed; the echoed rest is scanned, and parsed only if read.
 * What a payment echoes from the route's own 402 (the official clients copy the option they chose
 * and the 402's `extensions` into every payment) is neither scanned nor parsed: a member whose text
 * is, character for character, one the route sent is that value, parsed once per text and shared.
 */
import { PAYMENT_IDENTIFIER } from '../types/payment-identifier.ts';
import type { PaymentPayload, PaymentRequirements } from '../types/x402-types.ts';
import { type RouteEchoes, routeEchoes } from './payment-echoes.ts';
import { defineLazyJson, type KnownValueEnd, scanMembers, scanObject, type Span } from './payment-scan.ts';

/** Largest payment header accepted, characters (a signed Solana tx in base64 JSON is ~2.5 kB). */
export const MAX_PAYMENT_HEADER_CHARS = 12_288;

export type DecodeResult =
  | { readonly ok: true; readonly payment: PaymentPayload; readonly requirements: PaymentRequirements }
  | { readonly ok: false; readonly reason: string; readonly message: string };

/** The raw payment header value, or null when the request carries none. */
export function paymentHeader(headers: Readonly<Record<string, string>>): string | null {
  return headers['payment-signature'] ?? headers['x-payment'] ?? null;
}

function sameTerms(a: PaymentRequirements, b: Record<string, unknown>): boolean {
  if (a.scheme !== b.scheme || a.network !== b.network || a.amount !== b.amount) return false;
  if (a.asset !== b.asset || a.payTo !== b.payTo || a.maxTimeoutSeconds !== b.maxTimeoutSeconds) return false;
  const extra = (b.extra ?? {}) as Record<string, unknown>;
  // Our own extra fields must come back unchanged; a client may not add or alter terms.
  return Object.entries(a.extra).every(([k, v]) => extra[k] === v);
}

/**
 * Decodes the base64 JSON payload and matches its `accepted` terms against the route's.
 * `extensions`: the JSON texts of the `extensions` the route's 402s sent lately (payment-echoes.ts).
 */
export function decodePayment(header: string, accepts: readonly PaymentRequirements[], extensions: readonly string[] = []): DecodeResult {
  if (header.length > MAX_PAYMENT_HEADER_CHARS) return { ok: false, reason: 'invalid_payload', message: 'payment header is too large' };
  const parsed = leanPayment(Buffer.from(header.trim(), 'base64').toString('utf8'), routeEchoes(accepts, extensions));
  if (parsed === NOT_JSON) return { ok: false, reason: 'invalid_payload', message: 'payment header is not base64 JSON' };
  return matchPayment(parsed, accepts);
}

const NOT_JSON = Symbol('not JSON');
/** The members every paid call reads: parsed at once (a malformed one refuses the payment). */
const READ_MEMBERS = new Set(['x402Version', 'accepted', 'payload']);

function parseSpan(json: string, [from, to]: Span): unknown {
  return JSON.parse(json.slice(from, to));
}

/**
 * The payment of a header's JSON with only what a call reads parsed: the members of READ_MEMBERS
 * and the `payment-identifier` extension; every other member (the echoed `resource`, `bazaar`, the
 * signed offers) is parsed only if something reads it. Not one JSON object: JSON.parse decides
 * (a string or null is JSON, refused later as no object).
 */
function leanPayment(json: string, echoes: RouteEchoes): unknown {
  const plain = plainPayment(json);
  if (plain !== null) return plain;
  const isObject = json.trimStart().startsWith('{');
  // The echoed values found, by member (a member given twice: the last, as everywhere else).
  const echoed = new Map<string, unknown>();
  const known: KnownValueEnd = (key, s, from) => {
    const list = key === 'accepted' ? echoes.accepted : key === 'extensions' ? echoes.extensions : null;
    if (!list) return -1;
    // A slice compared whole (native, about 0.1 µs for 1 kB): startsWith walks it char by char (1.5-6 µs).
    const hit = list.find(([text]) => s.slice(from, from + text.length) === text);
    if (hit) echoed.set(key, hit[1]);
    else echoed.delete(key);
    return hit ? from + hit[0].length : -1;
  };
  const members = isObject ? scanObject(json, known) : null;
  if (isObject && !members) return NOT_JSON;
  try {
    if (!members) return JSON.parse(json);
    const payment: Record<string, unknown> = {};
    for (const [key, span] of members) {
      if (echoed.has(key)) payment[key] = echoed.get(key);
      else if (READ_MEMBERS.has(key)) payment[key] = parseSpan(json, span);
      else if (key === 'extensions') payment.extensions = leanExtensions(json, span);
      else defineLazyJson(payment, key, json.slice(span[0], span[1]));
    }
    return payment;
  } catch {
    return NOT_JSON;
  }
}

/** Nesting of a payment's parts (a channel voucher's payload is 3 deep); deeper goes to the scan and its bound. */
const PLAIN_MAX_DEPTH = 8;
/**
 * Longest JSON parsed whole first (a voucher's is about 1.1 kB, an `exact` Solana payment's under
 * 2 kB): a hostile header that fails the checks after the parse costs at most this much more than
 * the scan alone (docs/security.md).
 */
const PLAIN_MAX_CHARS = 4096;

/**
 * A payment that echoes nothing (a pre-signed voucher, our own client's payment), parsed whole:
 * every member of it is read, and one native parse is half of what the scan and its members'
 * parses cost (docs/benchmarks.md, issue 40 ninth pass). Null for anything else (an echoed
 * `resource` or `extensions`, another member, nesting past PLAIN_MAX_DEPTH, text that is not one
 * JSON object): the lean path decides those, as before.
 */
function plainPayment(json: string): Record<string, unknown> | null {
  if (json.length > PLAIN_MAX_CHARS || json.includes('"extensions"') || json.includes('"resource"')) return null;
  if (!json.trimStart().startsWith('{')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  // Only members a paid call reads anyway.
  if (!Object.keys(parsed).every((k) => READ_MEMBERS.has(k))) return null;
  return depthWithin(parsed, PLAIN_MAX_DEPTH) ? (parsed as Record<string, unknown>) : null;
}

/** True when `value` nests objects and arrays at most `depth` deep. */
function depthWithin(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (depth === 0) return false;
  for (const k in value) if (!depthWithin((value as Record<string, unknown>)[k], depth - 1)) return false;
  return true;
}

/** The `extensions` object with only `payment-identifier` parsed (throws when that member is not JSON). */
function leanExtensions(json: string, span: Span): unknown {
  const scanned = scanMembers(json, span[0]);
  if (!scanned) return parseSpan(json, span);
  const extensions: Record<string, unknown> = {};
  for (const [key, member] of scanned.members) {
    if (key === PAYMENT_IDENTIFIER) extensions[key] = parseSpan(json, member);
    else defineLazyJson(extensions, key, json.slice(member[0], member[1]));
  }
  return extensions;
}

/**
 * Checks an already parsed PaymentPayload (the MCP transport carries it as a JSON object in
 * `_meta["x402/payment"]`) and matches its `accepted` terms against the route's.
 */
export function matchPayment(parsed: unknown, accepts: readonly PaymentRequirements[]): DecodeResult {
  if (typeof parsed !== 'object' || parsed === null) return { ok: false, reason: 'invalid_payload', message: 'payment payload is not an object' };
  const p = parsed as Record<string, unknown>;
  if (p.x402Version !== 2) return { ok: false, reason: 'invalid_x402_version', message: 'only x402Version 2 payments are accepted' };
  if (typeof p.accepted !== 'object' || p.accepted === null) return { ok: false, reason: 'invalid_payload', message: 'payment payload has no accepted terms' };
  if (typeof p.payload !== 'object' || p.payload === null) return { ok: false, reason: 'invalid_payload', message: 'payment payload has no payload object' };
  const accepted = p.accepted as Record<string, unknown>;
  const requirements = accepts.find((a) => sameTerms(a, accepted));
  if (!requirements) {
    const scheme = accepts.some((a) => a.scheme === accepted.scheme);
    const network = accepts.some((a) => a.network === accepted.network);
    const reason = !scheme ? 'unsupported_scheme' : !network ? 'invalid_network' : 'invalid_payment_requirements';
    return { ok: false, reason, message: "the accepted terms are not this route's terms" };
  }
  return { ok: true, payment: p as unknown as PaymentPayload, requirements };
}

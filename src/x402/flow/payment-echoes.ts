/**
 * What a route's 402 said that a payment sends back. The official x402 clients copy the option they
 * chose (`accepted`) and the 402's `extensions` (about 1 kB of declarations and schemas here) into
 * every payment, as JSON text the same character for character as ours: JSON.stringify of what
 * they parsed from our JSON.stringify. A payment member with one of these texts is that value, so
 * it is parsed once per text, frozen and shared by every payment that echoes it, instead of being
 * scanned and parsed per call. A text that differs by one character is decoded as any other.
 */
import type { PaymentRequirements } from '../types/x402-types.ts';

/** A text a payment may echo, and its value (frozen). */
export type Echo = readonly [text: string, value: unknown];

/** The texts a route's payments may echo. */
export interface RouteEchoes {
  /** One per option of the route, as the 402 lists them (an option with live fields never matches: they are not in `accepts`). */
  readonly accepted: readonly Echo[];
  /** The `extensions` of the route's latest 402s, newest last. */
  readonly extensions: readonly Echo[];
}

/**
 * `extensions` texts kept per route: the current one per transport (HTTP, MCP) and a few before it,
 * since a payment answers the 402 its client read, which may be one text older.
 */
export const MAX_EXTENSION_ECHOES = 4;

function deepFreeze(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member);
  return value;
}

const echoOf = (text: string): Echo => [text, deepFreeze(JSON.parse(text))];

// By the route's options: a ChallengeBuilder's `accepts` is one array for the route's life.
const byRoute = new WeakMap<readonly PaymentRequirements[], { accepted: readonly Echo[]; extensions: Echo[] }>();

/**
 * The echoes of the route whose options are `accepts`, with `extensions` (the texts its 402s sent:
 * ours, never a payer's) added when new, the oldest dropped past MAX_EXTENSION_ECHOES.
 */
export function routeEchoes(accepts: readonly PaymentRequirements[], extensions: readonly string[]): RouteEchoes {
  let echoes = byRoute.get(accepts);
  if (!echoes) {
    echoes = { accepted: accepts.map((a) => echoOf(JSON.stringify(a))), extensions: [] };
    byRoute.set(accepts, echoes);
  }
  for (const text of extensions) {
    if (echoes.extensions.some(([kept]) => kept === text)) continue;
    if (echoes.extensions.length >= MAX_EXTENSION_ECHOES) echoes.extensions.shift();
    echoes.extensions.push(echoOf(text));
  }
  return echoes;
}

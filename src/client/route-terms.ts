/**
 * What the client knows of each route's terms: learned once, for every route at once, from the
 * service's x402 discovery document (`/.well-known/x402`, one request), or from the 402 a route
 * answers when the document does not name it; kept until a 402 shows them changed. The live
 * fields of a Solana option (a recent blockhash) are not kept: they are stale within a minute, and
 * without them the official Solana scheme asks the payer's RPC for a fresh one.
 */
import type { ClientHttp } from './client-http.ts';
import { type PaymentRequired, readTerms, type Terms } from './x402-wire.ts';

/** Where the service publishes its discovery document. */
export const DISCOVERY_PATH = '/.well-known/x402';
/** The Solana option's live fields, valid for moments: never kept with the terms. */
const LIVE_EXTRA = new Set(['recentBlockhash', 'lastValidBlockHeight', 'recentSlot']);
/** Largest discovery document read (20 routes with signed offers and schemas are about 150 kB). */
const MAX_DISCOVERY_BYTES = 4 * 1024 * 1024;

/** A route's options as the client holds them. */
export interface RouteTerms {
  readonly accepts: readonly Terms[];
  /** How they were learned: the discovery document once for all routes, or this route's 402. */
  readonly source: 'discovery' | '402';
}

/** The terms of every route the client has learned. */
export interface TermsBook {
  /** The route's terms; the first asking reads the discovery document (once, shared by concurrent callers). Null: unknown, ask the route. */
  termsOf(path: string): Promise<RouteTerms | null>;
  /** Takes the route's terms from its 402; returns them (null when the 402 names none). */
  learn(path: string, challenge: PaymentRequired): RouteTerms | null;
}

/** Terms without their live fields. */
function withoutLive(t: Terms): Terms {
  if (!Object.keys(t.extra).some((k) => LIVE_EXTRA.has(k))) return t;
  return { ...t, extra: Object.fromEntries(Object.entries(t.extra).filter(([k]) => !LIVE_EXTRA.has(k))) };
}

const sameValue = (a: unknown, b: unknown): boolean => a === b || (typeof a === 'object' && a !== null && JSON.stringify(a) === JSON.stringify(b));

/** Whether two options are the same terms (every field, `extra` without its live fields). */
export function sameTerms(a: Terms, b: Terms): boolean {
  if (a.scheme !== b.scheme || a.network !== b.network || a.amount !== b.amount) return false;
  if (a.asset !== b.asset || a.payTo !== b.payTo || a.maxTimeoutSeconds !== b.maxTimeoutSeconds) return false;
  const ea = Object.entries(withoutLive(a).extra);
  const eb = withoutLive(b).extra;
  return ea.length === Object.keys(eb).length && ea.every(([k, v]) => sameValue(v, eb[k]));
}

/** `/v1/epoch` of a discovery item's resource URL (`https://host/prefix/v1/epoch`), or null. */
function routeOf(resource: unknown): string | null {
  if (typeof resource !== 'string') return null;
  try {
    const path = new URL(resource).pathname;
    const at = path.indexOf('/v1/');
    return at >= 0 ? path.slice(at) : null;
  } catch {
    return null;
  }
}

/** Every route's options in a discovery document (untrusted JSON). */
function readDiscovery(doc: unknown): Map<string, RouteTerms> {
  const found = new Map<string, RouteTerms>();
  const items = typeof doc === 'object' && doc !== null ? (doc as { items?: unknown }).items : undefined;
  if (!Array.isArray(items)) return found;
  for (const item of items) {
    const path = routeOf((item as { resource?: unknown })?.resource);
    const accepts = (item as { accepts?: unknown })?.accepts;
    if (!path || !Array.isArray(accepts)) continue;
    const terms = accepts.map(readTerms).filter((t): t is Terms => t !== null);
    if (terms.length > 0) found.set(path, { accepts: terms.map(withoutLive), source: 'discovery' });
  }
  return found;
}

/** A book that reads the discovery document through `http` when first asked. */
export function createTermsBook(http: ClientHttp, timeoutMs: number): TermsBook {
  const routes = new Map<string, RouteTerms>();
  let discovery: Promise<void> | null = null;

  async function readDocument(): Promise<void> {
    try {
      const answer = await http.get(DISCOVERY_PATH, {}, timeoutMs);
      if (answer.status !== 200 || answer.bytes.length > MAX_DISCOVERY_BYTES) return;
      for (const [path, terms] of readDiscovery(JSON.parse(answer.bytes.toString('utf8')))) if (!routes.has(path)) routes.set(path, terms);
    } catch {
      // No document (an older service, a proxy that hides it): each route's first 402 teaches its terms.
    }
  }

  return {
    async termsOf(path) {
      const known = routes.get(path);
      if (known) return known;
      discovery ??= readDocument();
      await discovery;
      return routes.get(path) ?? null;
    },
    learn(path, challenge) {
      if (challenge.accepts.length === 0) return null;
      const terms: RouteTerms = { accepts: challenge.accepts.map(withoutLive), source: '402' };
      routes.set(path, terms);
      return terms;
    },
  };
}

/**
 * What the process prints passes through here: every configured upstream URL is cut to its scheme
 * and host (an RPC provider's key lives in the path or query, a database's password in the
 * userinfo), the configured tokens and keys become `***`, and any other URL with userinfo, a path
 * or a query that a library wrote into an error (viem writes the request URL and body, undici
 * the address) is cut to its scheme and host too. Applied to the console by main.ts, so a fault's
 * details reach the operator without the secrets.
 */
import type { Config } from './config.ts';

/** The options that carry a secret in a URL or are one. */
export type RedactedConfig = Partial<
  Pick<
    Config,
    | 'rpcUrl'
    | 'geyserUrl'
    | 'geyserToken'
    | 'evmRpcUrl'
    | 'facilitatorUrl'
    | 'jupiterUrl'
    | 'geckoterminalUrl'
    | 'magicedenUrl'
    | 'lendingUrl'
    | 'jupiterApiKey'
    | 'magicedenApiKey'
    | 'databaseUrl'
    | 'adminToken'
  >
>;

/** Shorter fragments (a `/v2` path segment) are too common to be anyone's secret. */
const MIN_FRAGMENT_CHARS = 6;
/** A URL in free text: a scheme, then anything up to a space, a quote or a bracket. */
const URL_RE = /\b([a-z][a-z0-9+.-]*):\/\/[^\s"'<>`\\)\]]+/gi;

/** `scheme://host[:port]` of a URL, without userinfo, path or query. */
function schemeAndHost(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return null;
  }
}

/** The secret-looking parts of a configured URL: password, path segments, query values, fragment. */
function fragmentsOf(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [url];
  }
  const parts = [u.username, u.password, ...u.pathname.split('/'), ...u.searchParams.values(), u.hash.slice(1)];
  return parts.flatMap((p) => [p, safeDecode(p)]).filter((p) => p.length >= MIN_FRAGMENT_CHARS);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Builds the redactor of the configured secrets: text in, the same text with them removed. */
export function createLogRedactor(config: Readonly<RedactedConfig>): (text: string) => string {
  const urls = [config.rpcUrl, config.geyserUrl, config.evmRpcUrl, config.facilitatorUrl, config.databaseUrl]
    .concat([config.jupiterUrl, config.geckoterminalUrl, config.magicedenUrl, config.lendingUrl])
    .filter((u): u is string => Boolean(u));
  const tokens = [config.geyserToken, config.jupiterApiKey, config.magicedenApiKey, config.adminToken].filter((t): t is string => Boolean(t));
  const fragments = [...new Set([...tokens, ...urls.flatMap(fragmentsOf)])].sort((a, b) => b.length - a.length);
  const fragmentRe = fragments.length > 0 ? new RegExp(fragments.map(escapeRe).join('|'), 'gi') : null;
  return (text) => {
    const cut = text.replace(URL_RE, (url) => {
      const bare = schemeAndHost(url);
      // Not a URL after all (a `//` in prose): leave it to the fragment pass.
      return bare === null ? url : bare;
    });
    return fragmentRe ? cut.replace(fragmentRe, '***') : cut;
  };
}

/**
 * The client's address: the peer's, unless the peer is a trusted reverse proxy, in which case the
 * right-most address of `X-Forwarded-For` that is not itself a trusted proxy (entries further left
 * were written by the client and can say anything). Rate limits and the free preview count it.
 */
import { isIP } from 'node:net';

/** Strips an IPv4-mapped IPv6 prefix so `::ffff:10.0.0.1` and `10.0.0.1` are one proxy. */
const plain = (ip: string): string => (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);

/** Resolves the client address of a request from `peer` and its `X-Forwarded-For` header. */
export function clientAddress(peer: string, forwardedFor: string | undefined, trustedProxies: ReadonlySet<string>): string {
  if (trustedProxies.size === 0 || !trustedProxies.has(plain(peer)) || !forwardedFor) return peer;
  const hops = forwardedFor.split(',').map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plain(hops[i]!);
    if (isIP(hop) === 0) return peer; // a malformed hop: nothing to its left can be trusted either
    if (!trustedProxies.has(hop)) return hop;
  }
  return peer;
}

/** The set form of a trusted proxy list (IPv4-mapped addresses in plain form). */
export function trustedProxySet(proxies: readonly string[]): ReadonlySet<string> {
  return new Set(proxies.map(plain));
}

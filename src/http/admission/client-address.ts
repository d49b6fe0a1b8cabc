/**
 * The client's address: the peer's, unless the peer is a trusted reverse proxy, in which case the
 * right-most address of `X-Forwarded-For` that is not itself a trusted proxy (entries further left
 * were written by the client and can say anything). Rate limits and the free preview count it.
 *
 * Addresses are compared as addresses, not as text: `::1`, `0:0:0:0:0:0:0:1` and uWS's
 * `0000:...:0001` are one address, and an IPv4-mapped IPv6 address (a dual-stack listener's view
 * of an IPv4 peer) is the IPv4 address it maps. A trusted entry may be a CIDR range
 * (`10.0.0.0/8`, `fd00::/8`). Every request asks about its peer, so the peer's verdict is kept
 * for the next request from the same peer (uWS hands the same text for a run of them).
 */
import { BlockList, isIP } from 'node:net';

/** The trusted proxies, as `clientAddress` asks about them. */
export interface TrustedProxies {
  /** Entries configured; 0 means no proxy is trusted (the peer is the client). */
  readonly size: number;
  /** Whether the request's peer is trusted (its last verdict kept). */
  peer(ip: string): boolean;
  /** Whether an `X-Forwarded-For` hop, in canonical form (`canonicalIp`), is trusted. */
  hop(canonical: string): boolean;
}

/** `a.b.c.d` of the last two groups of an IPv4-mapped IPv6 address. */
const dotted = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** Fills `into` from `from` with the hex groups of `parts`. */
function putGroups(parts: readonly string[], into: number[], from: number): void {
  for (let i = 0; i < parts.length; i++) into[from + i] = Number.parseInt(parts[i]!, 16);
}

/** The eight groups of an address `isIP` called IPv6 (a zone and a dotted IPv4 tail allowed). */
function ipv6Groups(text: string): number[] {
  let s = text.split('%')[0]!;
  if (s.includes('.')) {
    const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s)!;
    const [a, b, c, d] = [Number(tail[1]), Number(tail[2]), Number(tail[3]), Number(tail[4])];
    s = `${s.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groups = [0, 0, 0, 0, 0, 0, 0, 0];
  const gap = s.indexOf('::');
  if (gap === -1) putGroups(s.split(':'), groups, 0);
  else {
    if (gap > 0) putGroups(s.slice(0, gap).split(':'), groups, 0);
    const right = s.slice(gap + 2);
    if (right !== '') {
      const parts = right.split(':');
      putGroups(parts, groups, 8 - parts.length);
    }
  }
  return groups;
}

/**
 * The canonical text of an IP address, or null for anything else: IPv4 as given (dotted decimal),
 * an IPv4-mapped IPv6 address as its IPv4, other IPv6 as eight lower-case hex groups without
 * leading zeros.
 */
export function canonicalIp(text: string): string | null {
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return null;
  const g = ipv6Groups(text);
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) return dotted(g[6]!, g[7]!);
  return g.map((n) => n.toString(16)).join(':');
}

/** An entry of `--trusted-proxies`: an address, or a range `address/prefix`; null when it is neither. */
export function parseProxyEntry(text: string): { readonly address: string; readonly prefix: number | null } | null {
  const [addressText, prefixText, extra] = text.trim().split('/');
  const address = canonicalIp(addressText ?? '');
  if (address === null || extra !== undefined) return null;
  if (prefixText === undefined) return { address, prefix: null };
  const prefix = Number(prefixText);
  const bits = address.includes(':') ? 128 : 32;
  return /^\d{1,3}$/.test(prefixText) && prefix <= bits ? { address, prefix } : null;
}

const familyOf = (canonical: string): 'ipv4' | 'ipv6' => (canonical.includes(':') ? 'ipv6' : 'ipv4');

/** The trusted proxies of a `--trusted-proxies` list (entries that do not parse are left out; config.ts refuses them first). */
export function trustedProxySet(entries: readonly string[]): TrustedProxies {
  const exact = new Set<string>();
  const ranges = new BlockList();
  let anyRange = false;
  for (const entry of entries) {
    const parsed = parseProxyEntry(entry);
    if (parsed === null) continue;
    if (parsed.prefix === null) exact.add(parsed.address);
    else {
      ranges.addSubnet(parsed.address, parsed.prefix, familyOf(parsed.address));
      anyRange = true;
    }
  }
  const hop = (c: string): boolean => exact.has(c) || (anyRange && ranges.check(c, familyOf(c)));
  let lastPeer = '';
  let lastVerdict = false;
  return {
    size: exact.size + (anyRange ? 1 : 0),
    peer(ip) {
      if (ip !== lastPeer) {
        const c = canonicalIp(ip);
        lastVerdict = c !== null && hop(c);
        lastPeer = ip;
      }
      return lastVerdict;
    },
    hop,
  };
}

/** Resolves the client address of a request from `peer` and its `X-Forwarded-For` header. */
export function clientAddress(peer: string, forwardedFor: string | undefined, trustedProxies: TrustedProxies): string {
  if (trustedProxies.size === 0 || !forwardedFor || !trustedProxies.peer(peer)) return peer;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonicalIp(hops[i]!.trim());
    if (hop === null) return peer; // a malformed hop: nothing to its left can be trusted either
    if (!trustedProxies.hop(hop)) return hop;
  }
  return peer;
}

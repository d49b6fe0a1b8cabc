/**
 * Who a free preview is counted against, and how that is stored. The client is its IP address;
 * an IPv6 client is its /64 prefix, because one host is commonly handed a whole /64 and would
 * otherwise get 2^64 previews a day; an IPv4-mapped IPv6 address (a dual-stack listener's view
 * of an IPv4 client) is the IPv4 address it maps. The quota keeps only a keyed hash of that key
 * (HMAC-SHA-256 under a random salt: the data dir's, or with a database the one row every
 * instance reads, so all of them hash a client alike), so it holds no addresses.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileSync } from '../durable/atomic-replace.ts';
import { makeDirSync } from '../durable/file-sync.ts';
import { ConfigError } from '../errors.ts';
import { isIPv4, isIPv6 } from 'node:net';

/** The salt file inside the preview directory (mode 0600). */
export const SALT_FILE = 'client-key.salt';
/** Random bytes of a salt, kept as hex (in the salt file, or the database's `preview_salt` row). */
export const SALT_BYTES = 32;
/** Bytes of the HMAC kept per client: 128 bits, collision-free in practice at any daily cap. */
const HASH_BYTES = 16;
/** What a stored client hash looks like (base64url of HASH_BYTES). */
export const CLIENT_HASH_RE = /^[A-Za-z0-9_-]{22}$/;

/** The eight 16-bit groups of an IPv6 address, or null when `text` is not one. */
function ipv6Groups(text: string): number[] | null {
  const address = text.split('%')[0]!;
  if (!isIPv6(address)) return null;
  // A dotted IPv4 tail (::ffff:1.2.3.4) is the last two groups written another way.
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = tail
    ? `${address.slice(0, tail.index)}${((Number(tail[1]) << 8) | Number(tail[2])).toString(16)}:${((Number(tail[3]) << 8) | Number(tail[4])).toString(16)}`
    : address;
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const [head = '', rest] = hex.split('::');
  if (rest === undefined) return groups(head);
  const [h, r] = [groups(head), groups(rest)];
  return [...h, ...new Array<number>(8 - h.length - r.length).fill(0), ...r];
}

/** The client key of a remote address: `ipv4:a.b.c.d`, `ipv6:<first four groups>::/64`, else the raw text. */
export function clientKeyOf(remoteIp: string): string {
  if (isIPv4(remoteIp)) return `ipv4:${remoteIp.split('.').map(Number).join('.')}`;
  const g = ipv6Groups(remoteIp);
  if (g === null) return `other:${remoteIp}`;
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  if (mapped) return `ipv4:${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.${g[7]! & 0xff}`;
  return `ipv6:${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}

/** A fresh random salt as hex. */
export const newSaltHex = (): string => randomBytes(SALT_BYTES).toString('hex');

/** Whether `text` is a salt as stored: SALT_BYTES as lowercase hex. */
export const isSaltHex = (text: string): boolean => new RegExp(`^[0-9a-f]{${SALT_BYTES * 2}}$`).test(text);

/** The data dir's salt, created (random, mode 0600) on first use. */
function loadOrCreateSalt(dir: string): Buffer {
  const path = join(dir, SALT_FILE);
  if (!existsSync(path)) {
    makeDirSync(dir);
    replaceFileSync(path, `${newSaltHex()}\n`, 0o600);
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!isSaltHex(text))
    throw new ConfigError([`${path} must hold ${SALT_BYTES} random bytes as hex; delete it to make a new one (today's previews are then forgotten)`]);
  return Buffer.from(text, 'hex');
}

/** A function from a remote address to the stored hash of its client key under `salt`. */
export function clientHasherOf(salt: Buffer): (remoteIp: string) => string {
  return (remoteIp) => createHmac('sha256', salt).update(clientKeyOf(remoteIp), 'utf8').digest().subarray(0, HASH_BYTES).toString('base64url');
}

/** A function from a remote address to the stored hash of its client key, under `dir`'s salt. */
export function createClientHasher(dir: string): (remoteIp: string) => string {
  return clientHasherOf(loadOrCreateSalt(dir));
}

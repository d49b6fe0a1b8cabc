/**
 * Deterministic keys of the local world: every keypair and synthetic address is a hash of the
 * world seed and a label, so one seed always gives the same world and no real key ever appears.
 * Keypairs sign synchronously through node:crypto (about 30x faster than kit's async signers),
 * which keeps world building and block production cheap.
 */
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { bytesToAddress } from '../encoding/base58.ts';

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);

/** A keypair that signs synchronously. */
export interface WorldSigner {
  readonly address: string;
  /** The 32-byte ed25519 seed (a local test key, never a real one). */
  readonly secretSeed: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

/** A seed's private key and address, kept by the seed's bytes (see `signerFromSeed`). */
const keysBySeed = new Map<string, { readonly key: KeyObject; readonly address: string }>();
/** Bounded: a world has a few thousand keys, a process plays a few worlds. */
const KEYS_BY_SEED_MAX = 65_536;

/**
 * Signer of a 32-byte ed25519 seed. Deriving the key and its address (node:crypto, base58) was a
 * fifth of a world snapshot's playback, and a process that starts many localnets (a test runner's
 * worker) derives the same world keys at every start, so they are kept by seed. Each call still
 * hands out its own object and its own copy of the seed.
 */
export function signerFromSeed(seed: Uint8Array): WorldSigner {
  const id = Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength).toString('latin1');
  let keys = keysBySeed.get(id);
  if (keys === undefined) {
    const der = new Uint8Array(ED25519_PKCS8_PREFIX.length + seed.length);
    der.set(ED25519_PKCS8_PREFIX);
    der.set(seed, ED25519_PKCS8_PREFIX.length);
    const key: KeyObject = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
    const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
    keys = { key, address: bytesToAddress(new Uint8Array(spki.subarray(spki.length - 32))) };
    if (keysBySeed.size < KEYS_BY_SEED_MAX) keysBySeed.set(id, keys);
  }
  const { key, address } = keys;
  return { address, secretSeed: seed.slice(), sign: (message) => new Uint8Array(sign(null, message, key)) };
}

/** Key derivation for one world seed. */
export interface WorldKeys {
  readonly seed: string;
  /** 32 bytes derived from the seed and `label`. */
  bytes(label: string): Uint8Array;
  /** A signing keypair for `label` (cached). */
  signer(label: string): WorldSigner;
  /** A synthetic address for `label` with no known key (token accounts, owners that never sign). */
  address(label: string): string;
}

/** Creates the key derivation of `seed`. */
export function createWorldKeys(seed: string | number): WorldKeys {
  const root = String(seed);
  const cache = new Map<string, WorldSigner>();
  const bytes = (label: string): Uint8Array => new Uint8Array(createHash('sha256').update(`solana-x402-intel/localnet/${root}/${label}`).digest());
  return {
    seed: root,
    bytes,
    signer: (label) => {
      let s = cache.get(label);
      if (s === undefined) {
        s = signerFromSeed(bytes(`key/${label}`));
        cache.set(label, s);
      }
      return s;
    },
    address: (label) => bytesToAddress(bytes(`addr/${label}`)),
  };
}

/**
 * Seeded PRNG (mulberry32) for traffic and distributions; Math.random is never used so a seed
 * reproduces everything.
 */
export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** Log-uniform in [min, max] (heavy right tail like real fee and tip markets). */
  logUniform(min: number, max: number): number;
}

/** Creates a PRNG from a string or number seed. */
export function createPrng(seed: string | number): Prng {
  const h = createHash('sha256').update(String(seed)).digest();
  let a = h.readUInt32LE(0);
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    logUniform: (min, max) => Math.exp(Math.log(min) + next() * (Math.log(max) - Math.log(min))),
  };
}

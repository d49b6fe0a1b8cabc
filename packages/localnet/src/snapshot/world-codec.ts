/**
 * The world's description (`World`: its mints, wallets, traders, pools and their keys) as plain
 * JSON and back, for the world snapshot. JSON has no big integers, bytes, maps or signers, so they
 * are tagged: `{"$n": "12"}`, `{"$b": "<base64>"}`, `{"$map": [[k, v], …]}`, and a signer by its
 * 32-byte seed, `{"$signer": "<base64>"}` (the world's keys are local ones derived from its seed,
 * never real keys). `mintsByAddress` is the same mints by address: rebuilt, not stored.
 */
import { signerFromSeed, type WorldSigner } from '../signing/world-keys.ts';
import type { World } from '../world/world.ts';

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

function isSigner(value: object): value is WorldSigner {
  const v = value as Partial<WorldSigner>;
  return typeof v.sign === 'function' && v.secretSeed instanceof Uint8Array && typeof v.address === 'string';
}

/** `world` as JSON text (one line). */
export function encodeWorld(world: World): string {
  const { mintsByAddress: _, ...stored } = world;
  return JSON.stringify(stored, (_key, value: unknown) => {
    if (typeof value === 'bigint') return { $n: value.toString() };
    if (value instanceof Uint8Array) return { $b: base64(value) };
    if (value instanceof Map) return { $map: [...value] };
    if (typeof value === 'object' && value !== null && isSigner(value)) return { $signer: base64(value.secretSeed) };
    return value;
  });
}

/** The world `encodeWorld` wrote; one signer object per key, as the builder hands them out. */
export function decodeWorld(text: string): World {
  const signers = new Map<string, WorldSigner>();
  const signerOf = (seed: string): WorldSigner => {
    let signer = signers.get(seed);
    if (signer === undefined) {
      signer = signerFromSeed(Uint8Array.from(Buffer.from(seed, 'base64')));
      signers.set(seed, signer);
    }
    return signer;
  };
  // A walk over the parsed tree, not a JSON.parse reviver: a reviver is called for every string and
  // number too (tens of thousands in the holder lists) and was most of the decode.
  const revive = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) value[i] = revive(value[i]);
      return value;
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1) {
      const tag = record[keys[0]!];
      if (keys[0] === '$n' && typeof tag === 'string' && /^-?\d+$/.test(tag)) return BigInt(tag);
      if (keys[0] === '$b' && typeof tag === 'string') return Uint8Array.from(Buffer.from(tag, 'base64'));
      if (keys[0] === '$map' && Array.isArray(tag)) return new Map(revive(tag) as [unknown, unknown][]);
      if (keys[0] === '$signer' && typeof tag === 'string') return signerOf(tag);
    }
    for (const key of keys) record[key] = revive(record[key]);
    return record;
  };
  const world = revive(JSON.parse(text)) as Omit<World, 'mintsByAddress'>;
  return { ...world, mintsByAddress: new Map([...world.mints.values()].map((m) => [m.address, m])) };
}

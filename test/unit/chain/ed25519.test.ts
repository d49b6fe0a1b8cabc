/**
 * The payer's signature check imports each raw public key as a JWK and keeps the key object
 * (src/chain/keys/ed25519.ts), where it used to wrap it in a DER SubjectPublicKeyInfo per check:
 * the DER decoder cost as much as the verification. The two imports must give the same verdict for every key a payer can send: valid
 * signatures, tampered ones, random keys, and edge keys (zero, the identity, small-order points,
 * coordinates past the field's prime, the sign bit on zero), including keys that are views into a
 * larger buffer, as a decoded transaction's are.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Ed25519Check, verifyEd25519Batch, verifyEd25519Few } from '../../../src/chain/keys/ed25519.ts';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The import the service used before: the key in a DER SubjectPublicKeyInfo. */
function derVerdict(c: Ed25519Check): boolean {
  if (c.publicKey.length !== 32 || c.signature.length !== 64) return false;
  try {
    return verify(null, c.message, createPublicKey({ key: Buffer.concat([SPKI_PREFIX, c.publicKey]), format: 'der', type: 'spki' }), c.signature);
  } catch {
    return false;
  }
}

const EDGE_KEYS = [
  '00'.repeat(32),
  `01${'00'.repeat(31)}`,
  `${'00'.repeat(31)}80`,
  `ec${'ff'.repeat(30)}7f`,
  `ed${'ff'.repeat(30)}7f`,
  `ee${'ff'.repeat(30)}7f`,
  'ff'.repeat(32),
  `${'ff'.repeat(31)}7f`,
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
].map((h) => Buffer.from(h, 'hex'));

function rawPublicKey(key: ReturnType<typeof generateKeyPairSync>['publicKey']): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
}

/** `bytes` as a view in the middle of a larger buffer. */
function asView(bytes: Uint8Array): Uint8Array {
  const big = new Uint8Array(bytes.length + 19).fill(0xaa);
  big.set(bytes, 7);
  return big.subarray(7, 7 + bytes.length);
}

function signedChecks(n: number): Ed25519Check[] {
  const checks: Ed25519Check[] = [];
  for (let i = 0; i < n; i++) {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = rawPublicKey(publicKey);
    const message = randomBytes(64 + i);
    const signature = sign(null, message, privateKey);
    const tampered = Buffer.from(signature);
    tampered[i % 64]! ^= 1;
    const otherKey = Buffer.from(raw);
    otherKey[i % 32]! ^= 0x10;
    checks.push({ publicKey: raw, message, signature }, { publicKey: asView(raw), message: asView(message), signature: asView(signature) });
    checks.push({ publicKey: raw, message, signature: tampered }, { publicKey: otherKey, message, signature });
  }
  return checks;
}

describe('ed25519 checks with the JWK import', () => {
  it('give the verdicts of the DER import for valid, tampered and foreign signatures', () => {
    const checks = signedChecks(40);
    const verdicts = verifyEd25519Batch(checks);
    expect(verdicts).toEqual(checks.map(derVerdict));
    // Each key's own signature passes, twice (as itself and as a view); the tampered and foreign ones fail.
    expect(verdicts.filter(Boolean)).toHaveLength(80);
  });

  it('give the verdicts of the DER import for random and edge keys', () => {
    const checks: Ed25519Check[] = [];
    for (let i = 0; i < 300; i++) checks.push({ publicKey: randomBytes(32), message: randomBytes(40), signature: randomBytes(64) });
    for (const key of EDGE_KEYS)
      for (const signature of [Buffer.alloc(64), randomBytes(64), Buffer.concat([Buffer.from([1]), Buffer.alloc(63)])])
        checks.push({ publicKey: key, message: Buffer.alloc(0), signature }, { publicKey: asView(key), message: randomBytes(10), signature });
    const verdicts = verifyEd25519Batch(checks);
    expect(verdicts).toEqual(checks.map(derVerdict));
    // Random keys and signatures never pass; an edge key may (the identity with R = identity, S = 0
    // passes for every message under OpenSSL's cofactorless check), the same under either import.
    expect(verdicts.slice(0, 300).every((v) => v === false)).toBe(true);
  });

  it('keep their verdicts once the kept key objects are emptied (more keys than it keeps)', () => {
    const valid = signedChecks(2);
    expect(verifyEd25519Batch(valid)).toEqual(valid.map(derVerdict));
    const flood: Ed25519Check[] = Array.from({ length: 1100 }, () => ({ publicKey: randomBytes(32), message: randomBytes(8), signature: randomBytes(64) }));
    expect(verifyEd25519Batch(flood).some(Boolean)).toBe(false);
    // A key seen before the flood and one a flooded key's slot could be confused with: still exact.
    const tamperedKey = { ...valid[0]!, publicKey: Buffer.from(valid[0]!.publicKey).fill(1, 0, 1) };
    expect(verifyEd25519Batch([...valid, tamperedKey])).toEqual([...valid, tamperedKey].map(derVerdict));
  });

  it('refuse keys and signatures of the wrong length, as before', () => {
    const [good] = signedChecks(1);
    const short = { ...good!, publicKey: good!.publicKey.subarray(0, 31) };
    const long = { ...good!, signature: Buffer.concat([good!.signature, Buffer.alloc(1)]) };
    expect(verifyEd25519Few([good!, short])).toEqual([true, false]);
    expect(verifyEd25519Batch([long])).toEqual([false]);
  });
});

/**
 * World keys: a seed's key and address are derived once per process and kept, but every signer
 * handed out is its own object with its own copy of the seed, and signs as the seed's key.
 */
import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addressToBytes } from '../../src/encoding/base58.ts';
import { createWorldKeys, signerFromSeed } from '../../src/signing/world-keys.ts';

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32-byte key follows it. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const verifies = (address: string, message: Uint8Array, signature: Uint8Array): boolean =>
  verify(null, message, createPublicKey({ key: Buffer.concat([SPKI_PREFIX, addressToBytes(address)]), format: 'der', type: 'spki' }), signature);

describe('world keys', () => {
  it('the same seed twice: the same address, two signers, each with its own copy of the seed', () => {
    const seed = new Uint8Array(32).fill(21);
    const a = signerFromSeed(seed);
    const b = signerFromSeed(seed);
    expect(b.address).toBe(a.address);
    expect(b).not.toBe(a);
    a.secretSeed.fill(0);
    seed.fill(0);
    expect(b.secretSeed).toEqual(new Uint8Array(32).fill(21));
    const message = new Uint8Array([1, 2, 3]);
    expect(verifies(a.address, message, b.sign(message))).toBe(true);
    expect(b.sign(message)).toEqual(a.sign(message));
  });

  it('different seeds give different keys, each signing as its own address', () => {
    const keys = createWorldKeys('world-keys-test');
    const one = keys.signer('one');
    const two = keys.signer('two');
    expect(one.address).not.toBe(two.address);
    const message = new Uint8Array([9]);
    expect(verifies(one.address, message, one.sign(message))).toBe(true);
    expect(verifies(two.address, message, one.sign(message))).toBe(false);
    expect(signerFromSeed(keys.bytes('key/one')).address).toBe(one.address);
  });
});

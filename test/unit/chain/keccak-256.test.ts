/**
 * The native Keccak-256 against an independent JavaScript one (@noble/hashes `keccak_256`) on random
 * inputs of every length around the sponge's 136-byte rate, in one part and in several; the
 * published empty-input digest; and the one reused hasher giving each input its own digest.
 */
import { randomBytes } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keccak256, NATIVE_KECCAK } from '../../../src/chain/evm/keccak-256.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('keccak256 (native)', () => {
  it('runs in the native addon on this machine', () => {
    expect(NATIVE_KECCAK).toBe(true);
  });

  it("gives Keccak-256's published digest of the empty input (not SHA3-256's)", () => {
    expect(hex(keccak256(new Uint8Array(0)))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  });

  it('equals @noble/hashes on every length from 0 to 300 bytes (both sides of the 136-byte rate)', () => {
    for (let length = 0; length <= 300; length++) {
      const input = randomBytes(length);
      expect(hex(keccak256(input)), `length ${length}`).toBe(hex(keccak_256(input)));
    }
  });

  it('equals @noble/hashes on random inputs split into random parts (Buffers and plain Uint8Arrays)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 400 }), { maxLength: 6 }), (parts) => {
        const whole = Buffer.concat(parts);
        const mixed = parts.map((p, i) => (i % 2 === 0 ? Buffer.from(p) : p));
        expect(hex(keccak256(...mixed))).toBe(hex(keccak_256(whole)));
      }),
      { numRuns: 300 },
    );
  });

  it('hashes a view into a larger buffer over the view only', () => {
    const backing = randomBytes(200);
    const view = backing.subarray(37, 101);
    const plain = new Uint8Array(backing.buffer, backing.byteOffset + 37, 64);
    expect(hex(keccak256(view))).toBe(hex(keccak_256(view)));
    expect(hex(keccak256(plain))).toBe(hex(keccak_256(plain)));
  });

  it('starts every digest from a fresh state (the hasher is reused) and returns a buffer of its own', () => {
    const a = randomBytes(64);
    const first = keccak256(a);
    keccak256(randomBytes(500));
    const again = keccak256(a);
    expect(hex(again)).toBe(hex(first));
    again.fill(0);
    expect(hex(first)).toBe(hex(keccak_256(a)));
  });
});

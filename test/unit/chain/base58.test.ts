/**
 * Our base58 decoder and encoder (no BigInt) against two independent ones, kit's codec (what the
 * service used before) and the bs58 package: the same bytes or the same refusal for random, hostile and edge
 * inputs, and isBase58OfLength agreeing with "decodes to exactly n bytes" everywhere.
 */
import { getBase58Codec } from '@solana/kit';
import bs58 from 'bs58';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase58, encodeBase58, isBase58OfLength } from '../../../src/chain/solana/base58.ts';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const KIT = getBase58Codec();

/** kit's decoder behind the alphabet check the service used to run first. */
function kitDecode(text: string): Uint8Array | null {
  if (text.length === 0 || !/^[1-9A-HJ-NP-Za-km-z]+$/.test(text)) return null;
  try {
    return Uint8Array.from(KIT.encode(text));
  } catch {
    return null;
  }
}

function bs58Decode(text: string): Uint8Array | null {
  if (text.length === 0) return null;
  try {
    return Uint8Array.from(bs58.decode(text));
  } catch {
    return null;
  }
}

const base58Text = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...ALPHABET), minLength, maxLength });
/** Mostly alphabet characters, with the look-alikes base58 leaves out and characters outside ASCII. */
const hostileText = fc.string({ unit: fc.constantFrom(...ALPHABET, '0', 'O', 'I', 'l', '+', '/', '=', ' ', '\u0000', 'é', '\u{1F600}'), maxLength: 100 });
/** Byte strings of the lengths that matter, often with leading zero bytes (leading '1's). */
const keyBytes = fc
  .tuple(fc.constantFrom(0, 1, 2, 5, 31), fc.constantFrom(31, 32, 33, 63, 64, 65))
  .chain(([zeros, length]) => fc.uint8Array({ minLength: length, maxLength: length }).map((b) => b.fill(0, 0, Math.min(zeros, length))));

function expectAgrees(text: string): void {
  const ours = decodeBase58(text);
  const kit = kitDecode(text);
  expect(ours === null ? null : [...ours]).toEqual(kit === null ? null : [...kit]);
  expect(ours === null ? null : [...ours]).toEqual(((b) => (b === null ? null : [...b]))(bs58Decode(text)));
  for (const n of [31, 32, 33, 64]) expect(isBase58OfLength(text, n)).toBe(kit?.length === n);
}

describe('base58', () => {
  it('decodes random alphabet text exactly as kit and bs58 do', () => {
    fc.assert(fc.property(base58Text(1, 90), expectAgrees), { numRuns: 3000 });
  });

  it('refuses or decodes hostile text exactly as kit does', () => {
    fc.assert(fc.property(hostileText, expectAgrees), { numRuns: 3000 });
  });

  it('round-trips 31-65 byte values, leading zero bytes included, and sizes them right', () => {
    fc.assert(
      fc.property(keyBytes, (bytes) => {
        const text = encodeBase58(bytes);
        expect([...decodeBase58(text)!]).toEqual([...bytes]);
        expectAgrees(text);
        expect(isBase58OfLength(text, bytes.length)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('encodes any bytes exactly as kit and bs58 do, leading zero bytes and empty input included', () => {
    const anyBytes = fc.tuple(fc.nat(6), fc.uint8Array({ maxLength: 80 })).map(([zeros, rest]) => Uint8Array.from([...new Uint8Array(zeros), ...rest]));
    fc.assert(
      fc.property(anyBytes, (bytes) => {
        const text = encodeBase58(bytes);
        expect(text).toBe(KIT.decode(bytes));
        expect(text).toBe(bs58.encode(bytes));
      }),
      { numRuns: 3000 },
    );
    expect(encodeBase58(new Uint8Array(0))).toBe('');
    expect(encodeBase58(new Uint8Array(3))).toBe('111');
  });

  it('handles the edges: empty, all ones, the largest 32-byte value, one digit too many', () => {
    for (const text of ['', '1', '1'.repeat(32), '1'.repeat(33), '1'.repeat(44), 'z', 'z'.repeat(44), 'z'.repeat(45), '2'.repeat(44)]) expectAgrees(text);
    const max32 = encodeBase58(new Uint8Array(32).fill(0xff));
    expect(max32).toHaveLength(44);
    expect(isBase58OfLength(max32, 32)).toBe(true);
    // 33 bytes' worth in 44 characters: the length check passes, the decoded size does not.
    const over = encodeBase58(Uint8Array.from([1, ...new Uint8Array(32).fill(0xff)]));
    expect(isBase58OfLength(over, 32)).toBe(false);
    expect(isBase58OfLength('1'.repeat(32), 32)).toBe(true);
    expect(isBase58OfLength('1'.repeat(31), 32)).toBe(false);
  });

  it('decodes text longer than the shared scratch buffer', () => {
    const bytes = Uint8Array.from({ length: 150 }, (_, i) => (i * 37 + 11) & 0xff);
    expect([...decodeBase58(encodeBase58(bytes))!]).toEqual([...bytes]);
  });
});

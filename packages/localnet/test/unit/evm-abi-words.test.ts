/** The localnet's minimal ABI encodings, against known Solidity encodings. */
import { describe, expect, it } from 'vitest';
import { addressWord, decodeString, decodeUint, encodeCall, encodeStrings, uintWord } from '../../src/evm/evm-abi-words.ts';

describe('evm-abi-words', () => {
  it('encodes static words and calls', () => {
    expect(uintWord(1n)).toBe(`${'0'.repeat(63)}1`);
    expect(() => uintWord(1n << 256n)).toThrow(RangeError);
    expect(addressWord('0xAbCdEf0123456789aBcDeF0123456789AbCdEf01')).toBe(`${'0'.repeat(24)}abcdef0123456789abcdef0123456789abcdef01`);
    expect(() => addressWord('0x12')).toThrow(TypeError);
    expect(encodeCall('40c10f19', ['aa', 'bb'])).toBe('0x40c10f19aabb');
  });

  it('encodes (string,string) as solc does and decodes strings back', () => {
    // abi.encode("USD Coin", "2"): two offsets (0x40, 0x80), then length + padded bytes each.
    const encoded = encodeStrings(['USD Coin', '2']);
    const words = encoded.match(/.{64}/g)!;
    expect(words.map((w) => BigInt(`0x${w}`))).toEqual([
      0x40n,
      0x80n,
      8n,
      BigInt(`0x${Buffer.from('USD Coin').toString('hex').padEnd(64, '0')}`),
      1n,
      BigInt(`0x${Buffer.from('2').toString('hex').padEnd(64, '0')}`),
    ]);
    const returned = `0x${uintWord(32n)}${encodeStrings(['USD Coin']).slice(64)}`;
    expect(decodeString(returned)).toBe('USD Coin');
    expect(decodeString(`0x${uintWord(32n)}${uintWord(0n)}`)).toBe('');
    expect(() => decodeString(`0x${uintWord(32n)}${uintWord(40n)}`)).toThrow(RangeError);
    expect(decodeUint(`0x${uintWord(12345n)}`)).toBe(12345n);
  });
});

/**
 * The few Solidity ABI encodings the localnet needs to deploy and drive LocalUsdc (addresses,
 * uint256, strings), so the localnet stays free of viem (viem lives in src/chain/evm-*.ts only).
 * Pure; selectors come from the compiled artifact's methodIdentifiers.
 */

const WORD_HEX = 64;
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/** One 32-byte word holding an unsigned integer. */
export function uintWord(value: bigint): string {
  if (value < 0n || value >= 1n << 256n) throw new RangeError(`uint256 out of range: ${value}`);
  return value.toString(16).padStart(WORD_HEX, '0');
}

/** One 32-byte word holding an address (left-padded). */
export function addressWord(address: string): string {
  if (!ADDRESS_RE.test(address)) throw new TypeError(`not a 20-byte hex address: ${address}`);
  return address.slice(2).toLowerCase().padStart(WORD_HEX, '0');
}

/** `0x` + selector + words: the calldata of a function with static arguments. */
export function encodeCall(selector: string, words: readonly string[]): string {
  return `0x${selector}${words.join('')}`;
}

/** ABI encoding of a tuple of strings (constructor arguments): offsets, then length + padded bytes. */
export function encodeStrings(values: readonly string[]): string {
  const tails = values.map((v) => {
    const bytes = Buffer.from(v, 'utf8');
    const padded = Buffer.concat([bytes, Buffer.alloc((32 - (bytes.length % 32)) % 32)]);
    return uintWord(BigInt(bytes.length)) + padded.toString('hex');
  });
  let offset = values.length * 32;
  const heads = tails.map((tail) => {
    const head = uintWord(BigInt(offset));
    offset += tail.length / 2;
    return head;
  });
  return heads.join('') + tails.join('');
}

/** Decodes a returned `string` (offset word, length word, bytes). */
export function decodeString(returnData: string): string {
  const hex = returnData.replace(/^0x/, '');
  const offset = Number(BigInt(`0x${hex.slice(0, WORD_HEX) || '0'}`)) * 2;
  const length = Number(BigInt(`0x${hex.slice(offset, offset + WORD_HEX) || '0'}`)) * 2;
  const start = offset + WORD_HEX;
  if (hex.length < start + length) throw new RangeError('returned string is truncated');
  return Buffer.from(hex.slice(start, start + length), 'hex').toString('utf8');
}

/** Decodes a returned uint256 (or bool) word. */
export function decodeUint(returnData: string): bigint {
  const hex = returnData.replace(/^0x/, '').slice(0, WORD_HEX);
  if (hex.length !== WORD_HEX) throw new RangeError('returned word is truncated');
  return BigInt(`0x${hex}`);
}

/**
 * Base58 (Bitcoin alphabet) for Solana addresses and signatures, so the rest of the service deals
 * in plain strings and bytes.
 *
 * Our own, without BigInt, both ways: query validation decodes an address on every paid request
 * (the 402 and 400 paths included), and every paid answer encodes its receipt's 64-byte signature;
 * kit's codec goes through a BigInt division per character, which showed in CPU profiles of both
 * paths. The schoolbook conversions below work on small digit arrays; a 44-character address is
 * about 1,500 small multiply-adds.
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const ALPHABET_CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
/** Character code -> digit value, -1 outside the alphabet (codes >= 128 are refused before lookup). */
const DIGITS = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGITS[ALPHABET.charCodeAt(i)] = i;
/** log(58) / log(256): bytes per base58 character, rounded up in the size bound below. */
const BYTES_PER_CHAR = 0.7322476;
/** Longest text decoded into the shared scratch buffer; longer text gets its own. */
const SCRATCH_CHARS = 128;
// One event loop, and decoding never yields: one scratch buffer serves every call.
const SCRATCH = new Uint8Array(Math.ceil(SCRATCH_CHARS * BYTES_PER_CHAR) + 1);

/**
 * Decodes the digits after the leading '1's into the tail of `out`; returns where the value's
 * first non-zero byte is in `out` (`out.length` for a zero value), or -1 for a character outside
 * the alphabet.
 */
function decodeInto(text: string, from: number, out: Uint8Array): number {
  const size = out.length;
  out.fill(0);
  let length = 0;
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let carry = code < 128 ? DIGITS[code]! : -1;
    if (carry < 0) return -1;
    let j = 0;
    for (let k = size - 1; (carry !== 0 || j < length) && k >= 0; k--, j++) {
      carry += 58 * out[k]!;
      out[k] = carry & 0xff;
      carry >>>= 8;
    }
    length = j;
  }
  let start = size - length;
  while (start < size && out[start] === 0) start++;
  return start;
}

function leadingOnes(text: string): number {
  let n = 0;
  while (n < text.length && text.charCodeAt(n) === 49) n++;
  return n;
}

function scratchFor(digits: number): Uint8Array {
  const size = Math.ceil(digits * BYTES_PER_CHAR) + 1;
  return digits <= SCRATCH_CHARS ? SCRATCH.subarray(0, size) : new Uint8Array(size);
}

/** Decodes base58 text to bytes, or null when the text is not base58. */
export function decodeBase58(text: string): Uint8Array | null {
  if (text.length === 0) return null;
  const zeros = leadingOnes(text);
  const work = scratchFor(text.length - zeros);
  const start = decodeInto(text, zeros, work);
  if (start < 0) return null;
  const bytes = new Uint8Array(zeros + work.length - start);
  bytes.set(work.subarray(start), zeros);
  return bytes;
}

/** Five base58 digits per limb: 58^5 < 2^30, so a limb times 65,536 plus two bytes stays exact in a double. */
const LIMB_DIGITS = 5;
const LIMB = 58 ** LIMB_DIGITS;
/** log(256) / log(58^5): limbs per byte, rounded up in the size bound below. */
const LIMBS_PER_BYTE = 0.27314;

/** Encodes bytes as base58 text: each leading zero byte is a '1', the rest is the number in base 58. */
export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const size = Math.ceil((bytes.length - zeros) * LIMBS_PER_BYTE) + 1;
  // The number in base 58^5, most significant limb first; the last `length` limbs are in use.
  const limbs = new Float64Array(size);
  let length = 0;
  // Two bytes a step (one first when their count is odd): a limb times 65,536 plus the carry stays
  // under 2^46, exact in a double, and half the passes over the limbs (a receipt's 64-byte
  // signature is encoded on the event loop once per paid call).
  for (let i = zeros; i < bytes.length; ) {
    const two = (bytes.length - i) % 2 === 0;
    let carry = two ? bytes[i]! * 256 + bytes[i + 1]! : bytes[i]!;
    const base = two ? 65_536 : 256;
    i += two ? 2 : 1;
    let j = 0;
    for (let k = size - 1; (carry !== 0 || j < length) && k >= 0; k--, j++) {
      carry += base * limbs[k]!;
      const q = Math.floor(carry / LIMB);
      limbs[k] = carry - q * LIMB;
      carry = q;
    }
    length = j;
  }
  // The digits' character codes, each limb's five from its end: one string made at the end
  // instead of one joined per digit.
  const codes = new Uint8Array(length * LIMB_DIGITS);
  for (let k = size - length, at = LIMB_DIGITS - 1; k < size; k++, at += LIMB_DIGITS) {
    let limb = limbs[k]!;
    for (let d = 0; d < LIMB_DIGITS; d++) {
      const q = Math.floor(limb / 58);
      codes[at - d] = ALPHABET_CODES[limb - q * 58]!;
      limb = q;
    }
  }
  // The top limb's leading zero digits are not part of the number.
  let first = 0;
  while (first < codes.length && codes[first] === 49) first++;
  return '1'.repeat(zeros) + String.fromCharCode.apply(null, codes.subarray(first) as unknown as number[]);
}

/** True when `text` is base58 that decodes to exactly `byteLength` bytes (32 for an address). */
export function isBase58OfLength(text: string, byteLength: number): boolean {
  // n bytes take at least n characters (all zero: n '1's) and at most ceil(n * log 256 / log 58).
  if (text.length < byteLength || text.length > Math.ceil(byteLength / BYTES_PER_CHAR)) return false;
  const zeros = leadingOnes(text);
  const work = scratchFor(text.length - zeros);
  const start = decodeInto(text, zeros, work);
  return start >= 0 && zeros + work.length - start === byteLength;
}

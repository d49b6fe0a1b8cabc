/**
 * Keccak-256 (Ethereum's hash) in native code: the `keccak` package's prebuilt N-API addon (the
 * Keccak team's reference implementation). A voucher check hashes five times (the channel id, the
 * voucher digest, the signer's address) and an EIP-3009 check four; in JavaScript (viem over
 * @noble/hashes) those hashes ran on the event loop whenever the pool idled, the last
 * JavaScript crypto on the paid path. Where the addon cannot load (a platform without a prebuild),
 * viem's JavaScript Keccak answers the same, only slower.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { keccak256 as jsKeccak256 } from 'viem/utils';

/** The addon's sponge (KeccakWidth1600): the package's own stream wrapper is one-shot and a stream per hash. */
interface NativeSponge {
  initialize(rateBits: number, capacityBits: number): void;
  absorb(data: Buffer): void;
  squeeze(bytes: number): Buffer;
}

/** Keccak-256's sponge: rate 1088 bits, capacity 512 bits, 32 bytes out (the pad is Keccak's 0x01, not SHA-3's 0x06). */
const RATE_BITS = 1088;
const CAPACITY_BITS = 512;
const DIGEST_BYTES = 32;

function loadNative(): NativeSponge | null {
  try {
    // The addon itself, through the loader the package uses (it picks the prebuild for this
    // platform), not the package's entry: that falls back to a JavaScript sponge silently.
    const packageDir = dirname(createRequire(import.meta.url).resolve('keccak/package.json'));
    const Sponge = createRequire(join(packageDir, 'index.js'))('node-gyp-build')(packageDir) as new () => NativeSponge;
    if (typeof Sponge !== 'function') return null;
    return new Sponge();
  } catch {
    return null;
  }
}

/**
 * One sponge for the thread, reused: a hash initializes it, absorbs and squeezes in one
 * synchronous call, so no two inputs can interleave in it (each worker thread loads its own).
 */
const native = loadNative();

/** Whether Keccak runs in the native addon (true) or in JavaScript. */
export const NATIVE_KECCAK = native !== null;

const asBuffer = (part: Uint8Array): Buffer => (Buffer.isBuffer(part) ? part : Buffer.from(part.buffer, part.byteOffset, part.byteLength));

/** Keccak-256 of the concatenated parts, 32 bytes. */
export function keccak256(...parts: readonly Uint8Array[]): Buffer {
  if (native) {
    native.initialize(RATE_BITS, CAPACITY_BITS);
    for (const part of parts) native.absorb(asBuffer(part));
    return native.squeeze(DIGEST_BYTES);
  }
  return Buffer.from(jsKeccak256(parts.length === 1 ? parts[0]! : Buffer.concat(parts), 'bytes'));
}

import { describe, expect, it } from 'vitest';
import { ownBytes } from '../../../src/pool/own-bytes.ts';

describe('own bytes: what a task carries to a worker', () => {
  it('a view into a larger buffer (Buffer.from of a short string) crosses as its own bytes alone', () => {
    const message = Buffer.from('{"receipt":"a few hundred bytes"}', 'utf8');
    // Node's shared slab: postMessage would copy all of it.
    expect(message.buffer.byteLength).toBeGreaterThan(message.byteLength);
    const own = ownBytes(message);
    expect(own.buffer.byteLength).toBe(message.byteLength);
    expect(Buffer.from(own).equals(message)).toBe(true);
  });

  it('bytes that already span their buffer are passed as they are', () => {
    const exact = new Uint8Array([1, 2, 3]);
    expect(ownBytes(exact)).toBe(exact);
  });
});

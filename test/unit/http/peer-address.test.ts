import { describe, expect, it } from 'vitest';
import { createPeerAddressText } from '../../../src/http/admission/peer-address.ts';

const raw = (hex: string): ArrayBuffer => new Uint8Array(Buffer.from(hex, 'hex')).buffer;

// The texts uWS's getRemoteAddressAsText gives for the same peers (read from uWS 20.30 on a
// 127.0.0.1 listener and on a dual-stack '::' listener).
const UWS_TEXT: ReadonlyArray<readonly [string, string]> = [
  ['7f000001', '127.0.0.1'],
  ['c0a80afe', '192.168.10.254'],
  ['00000000000000000000ffff7f000001', '0000:0000:0000:0000:0000:ffff:7f00:0001'],
  ['00000000000000000000000000000001', '0000:0000:0000:0000:0000:0000:0000:0001'],
  ['20010db8000100020000000000000abc', '2001:0db8:0001:0002:0000:0000:0000:0abc'],
];

describe('createPeerAddressText', () => {
  it('writes what uWS writes, for IPv4, IPv4-mapped and IPv6 peers', () => {
    const text = createPeerAddressText();
    for (const [hex, expected] of UWS_TEXT) expect(text(raw(hex))).toBe(expected);
  });

  it('answers right when clients alternate, and when the same bytes come back in another buffer', () => {
    const text = createPeerAddressText();
    const sequence = [0, 0, 1, 0, 2, 2, 3, 1, 4, 4, 0];
    for (const i of sequence) expect(text(raw(UWS_TEXT[i]![0]))).toBe(UWS_TEXT[i]![1]);
  });

  it('keeps its own copy: a buffer overwritten after the call does not change the next answer', () => {
    const text = createPeerAddressText();
    const shared = new Uint8Array(Buffer.from('7f000001', 'hex'));
    expect(text(shared.buffer)).toBe('127.0.0.1');
    shared.set([10, 0, 0, 7]);
    expect(text(shared.buffer)).toBe('10.0.0.7');
    expect(text(raw('7f000001'))).toBe('127.0.0.1');
  });

  it('gives an empty text for bytes that are no address', () => {
    const text = createPeerAddressText();
    expect(text(new ArrayBuffer(0))).toBe('');
    expect(text(raw('7f0000'))).toBe('');
  });
});

import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import {
  decodeVerifierKey,
  encodeVerifierKey,
  formatNote,
  isValidKeyName,
  MAX_NOTE_SIGNATURES,
  noteKeyId,
  parseNote,
  signNote,
  verifyNote,
  type NoteSigner,
} from '../../../src/tlog/signed-note.ts';

// Published test vectors of Go's golang.org/x/mod/sumdb/note (data, not code): Peter Neumann's key,
// its verifier key and the signature Go produces over the text below.
const PETER_SKEY_B64 = 'AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const ENOCH_VKEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG = '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const ENOCH_SIG = '— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';

const seed = Buffer.from(PETER_SKEY_B64, 'base64').subarray(1);
const peterPair = nacl.sign.keyPair.fromSeed(seed);
const peterSigner: NoteSigner = { keyName: 'PeterNeumann', publicKey: peterPair.publicKey, sign: (m) => nacl.sign.detached(m, peterPair.secretKey) };

function key(vkey: string) {
  const k = decodeVerifierKey(vkey);
  if (!k.ok) throw new Error(k.reason);
  return k.value;
}

describe('signed notes (C2SP signed-note)', () => {
  it('derives the key ID and vkey Go derives for the same key and name', () => {
    expect(noteKeyId('PeterNeumann', 0x01, peterPair.publicKey)).toBe(0xc74f20a3);
    expect(encodeVerifierKey('PeterNeumann', peterPair.publicKey)).toBe(PETER_VKEY);
    const peter = key(PETER_VKEY);
    expect(peter.keyId).toBe(0xc74f20a3);
    expect(Buffer.from(peter.publicKey).equals(Buffer.from(peterPair.publicKey))).toBe(true);
    expect(key(ENOCH_VKEY).keyId).toBe(0xaf0cfe78);
  });

  it('signs byte for byte as Go signs', async () => {
    expect(await signNote(TEXT, [peterSigner])).toBe(`${TEXT}\n${PETER_SIG}`);
  });

  it('opens Go-signed notes, ignoring unknown keys and requiring a known one', () => {
    const both = `${TEXT}\n${PETER_SIG}${ENOCH_SIG}`;
    const byPeter = verifyNote(both, [key(PETER_VKEY)]);
    expect(byPeter.ok && byPeter.value.verifiedBy.map((k) => k.keyName)).toEqual(['PeterNeumann']);
    expect(byPeter.ok && byPeter.value.text).toBe(TEXT);
    const byBoth = verifyNote(both, [key(ENOCH_VKEY), key(PETER_VKEY)]);
    expect(byBoth.ok && byBoth.value.verifiedBy.map((k) => k.keyName)).toEqual(['PeterNeumann', 'EnochRoot']);
    expect(verifyNote(both, [])).toEqual({ ok: false, reason: 'no known key signed the note' });
    expect(verifyNote(`${TEXT}\n${ENOCH_SIG}`, [key(PETER_VKEY)]).ok).toBe(false);
  });

  it('rejects a note whose known signature fails, even beside a good one', () => {
    const forged = `${TEXT.replace('answer', 'ANSWER')}\n${PETER_SIG}`;
    expect(verifyNote(forged, [key(PETER_VKEY)])).toEqual({ ok: false, reason: 'signature by PeterNeumann does not verify' });
    const tampered = `${TEXT}\n${PETER_SIG.slice(0, 60)}ABCD${PETER_SIG.slice(60)}`;
    expect(verifyNote(tampered, [key(PETER_VKEY)]).ok).toBe(false);
  });

  it('ignores a signature whose name matches a known key but whose ID does not', () => {
    const otherId = PETER_SIG.replace('x08go', 'AAAAA');
    expect(verifyNote(`${TEXT}\n${otherId}`, [key(PETER_VKEY)])).toEqual({ ok: false, reason: 'no known key signed the note' });
  });

  it('refuses malformed notes', () => {
    const bad = [
      TEXT, // no signature block
      `${TEXT}\n`, // empty signature block
      `${TEXT}\n${PETER_SIG.slice(0, -1)}`, // no final newline
      `${TEXT}\n- PeterNeumann ${PETER_SIG.slice(15)}`, // ASCII dash
      `${TEXT}\n— Peter+Neumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
      `${TEXT}\n— PeterNeumann x08g\n`, // four bytes: ID only
      `${TEXT}\n— PeterNeumann x08go/ZJ*\n`, // not base64
      `${TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM\n`, // unpadded
      `tab\there\n\n${PETER_SIG}`, // control character
      `${TEXT}\n${PETER_SIG.repeat(MAX_NOTE_SIGNATURES + 1)}`,
    ];
    for (const note of bad) expect(parseNote(note).ok, JSON.stringify(note)).toBe(false);
    expect(parseNote(Uint8Array.of(0x61, 0xff, 0x0a, 0x0a)).ok).toBe(false);
  });

  it('splits text from signatures at the last blank line', () => {
    const text = 'first\n\nsecond\n';
    const parsed = parseNote(`${text}\n${PETER_SIG}`);
    expect(parsed.ok && parsed.value.text).toBe(text);
  });

  it('checks key names and vkeys', () => {
    expect(isValidKeyName('example.com/log')).toBe(true);
    for (const name of ['', 'a b', 'a+b', 'a\u00a0b', 'a\u0085b', 'a\u2003b']) expect(isValidKeyName(name)).toBe(false);
    expect(decodeVerifierKey(PETER_VKEY.replace('c74f20a3', 'c74f20a4'))).toEqual({ ok: false, reason: 'vkey hash does not match its key' });
    expect(decodeVerifierKey('PeterNeumann+c74f20a3').ok).toBe(false);
    expect(decodeVerifierKey(PETER_VKEY.replace('+ARpc', '+AhRpc')).ok).toBe(false);
    expect(() => encodeVerifierKey('a b', peterPair.publicKey)).toThrow();
    expect(() => formatNote({ text: 'no newline', signatures: [] })).toThrow();
  });
});

/**
 * Signed notes (C2SP signed-note): a UTF-8 text ending in a newline, a blank line, then one
 * signature line per key, `— <key name> base64(keyId(4, big-endian) || signature)`. The key ID of
 * an Ed25519 key is the first four bytes of SHA-256(key name || 0x0A || 0x01 || public key), and
 * its verifier key (`vkey`, the form Go's sumdb/note reads) is `<name>+<keyId as 8 hex>+base64(0x01
 * || public key)`. Parsing is strict (the same rules Go applies) and bounded: a note is untrusted
 * input until a known key's signature verifies.
 */
import { verifyEd25519Batch } from '../chain/keys/ed25519.ts';
import { sha256 } from '../ledger/merkle-hash.ts';

/** Signature type byte of plain Ed25519 note signatures. */
export const NOTE_SIG_TYPE_ED25519 = 0x01;
/** Largest note we parse; the spec asks for at least 16 signatures of up to ~5 kB each. */
export const MAX_NOTE_BYTES = 256 * 1024;
/** Most signature lines we parse in one note (Go's sumdb/note stops at the same count). */
export const MAX_NOTE_SIGNATURES = 100;
const ED25519_PUBLIC_KEY_BYTES = 32;
const ED25519_SIGNATURE_BYTES = 64;
const KEY_ID_BYTES = 4;
const SIG_PREFIX = '\u2014 ';
// Go's unicode.IsSpace also counts U+0085 (NEL), which JavaScript's \s does not.
const BAD_NAME_CHAR_RE = /[\s\u0085+]/u;
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX8_RE = /^[0-9a-f]{8}$/;
const NEWLINE = 0x0a;
const FIRST_PRINTABLE = 0x20;

/** True when `text` holds an ASCII control character other than newline (the format forbids them). */
function hasControlChar(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < FIRST_PRINTABLE && c !== NEWLINE) return true;
  }
  return false;
}

/** One signature line: the key name, its 32-bit key ID and the signature bytes after the ID. */
export interface NoteSignature {
  readonly keyName: string;
  readonly keyId: number;
  readonly signature: Uint8Array;
}

/** A parsed (not yet verified) note: its text (ending in a newline) and its signature lines in order. */
export interface Note {
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

/** An Ed25519 verifier key. */
export interface NoteVerifierKey {
  readonly keyName: string;
  readonly keyId: number;
  readonly publicKey: Uint8Array;
}

/** Signs the note text's bytes with one Ed25519 key (may run in the worker pool). */
export interface NoteSigner {
  readonly keyName: string;
  readonly publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

/** Expected outcomes of parsing and verifying. */
export type NoteResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** True when `name` is a valid key name: non-empty, no Unicode space, no `+`. */
export function isValidKeyName(name: string): boolean {
  return typeof name === 'string' && name.length > 0 && !BAD_NAME_CHAR_RE.test(name) && !hasControlChar(name);
}

/** Key ID = SHA-256(key name || 0x0A || signature type || public key)[:4], big-endian. */
export function noteKeyId(keyName: string, sigType: number, publicKey: Uint8Array): number {
  const digest = sha256(Buffer.from(`${keyName}\n`, 'utf8'), Uint8Array.of(sigType), publicKey);
  return digest.readUInt32BE(0);
}

/** Strict standard base64 (RFC 4648 §4, padded); null when `text` is not exactly that. */
export function decodeBase64Strict(text: string): Buffer | null {
  if (!BASE64_RE.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

function keyIdHex(keyId: number): string {
  return keyId.toString(16).padStart(8, '0');
}

/** The `vkey` of an Ed25519 key: `<name>+<key ID hex>+base64(0x01 || public key)`. */
export function encodeVerifierKey(keyName: string, publicKey: Uint8Array): string {
  if (!isValidKeyName(keyName)) throw new TypeError('invalid note key name');
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) throw new TypeError('ed25519 public key must be 32 bytes');
  const keyId = noteKeyId(keyName, NOTE_SIG_TYPE_ED25519, publicKey);
  const encoded = Buffer.concat([Uint8Array.of(NOTE_SIG_TYPE_ED25519), publicKey]).toString('base64');
  return `${keyName}+${keyIdHex(keyId)}+${encoded}`;
}

/** Reads an Ed25519 `vkey`; checks the name, the key ID against the key, and the type byte. */
export function decodeVerifierKey(vkey: string): NoteResult<NoteVerifierKey> {
  const parts = typeof vkey === 'string' ? vkey.split('+') : [];
  // The base64 key may itself contain '+': everything after the second '+' is the key.
  if (parts.length < 3) return { ok: false, reason: 'a vkey is <name>+<hash>+<key>' };
  const [keyName, hashHex] = parts as [string, string];
  const key = decodeBase64Strict(parts.slice(2).join('+'));
  if (!isValidKeyName(keyName) || !HEX8_RE.test(hashHex) || !key) return { ok: false, reason: 'malformed vkey' };
  if (key[0] !== NOTE_SIG_TYPE_ED25519 || key.length !== 1 + ED25519_PUBLIC_KEY_BYTES) return { ok: false, reason: 'vkey is not an ed25519 key' };
  const publicKey = new Uint8Array(key.subarray(1));
  const keyId = noteKeyId(keyName, NOTE_SIG_TYPE_ED25519, publicKey);
  if (keyIdHex(keyId) !== hashHex) return { ok: false, reason: 'vkey hash does not match its key' };
  return { ok: true, value: { keyName, keyId, publicKey } };
}

/** One signature line, newline included. */
export function formatSignatureLine(sig: NoteSignature): string {
  const head = Buffer.alloc(KEY_ID_BYTES);
  head.writeUInt32BE(sig.keyId >>> 0, 0);
  return `${SIG_PREFIX}${sig.keyName} ${Buffer.concat([head, sig.signature]).toString('base64')}\n`;
}

function textProblem(text: string): string | null {
  if (!text.endsWith('\n')) return 'note text must end with a newline';
  if (hasControlChar(text)) return 'note text has a control character';
  return null;
}

/** The note's wire form: text, blank line, signature lines. */
export function formatNote(note: Note): string {
  const problem = textProblem(note.text);
  if (problem) throw new TypeError(problem);
  if (note.signatures.length === 0) throw new TypeError('a signed note needs at least one signature');
  return `${note.text}\n${note.signatures.map(formatSignatureLine).join('')}`;
}

/** Signs `text` with each signer (in order) and returns the signed note. */
export async function signNote(text: string, signers: readonly NoteSigner[]): Promise<string> {
  const problem = textProblem(text);
  if (problem) throw new TypeError(problem);
  const message = Buffer.from(text, 'utf8');
  const signatures: NoteSignature[] = [];
  for (const s of signers) {
    const keyId = noteKeyId(s.keyName, NOTE_SIG_TYPE_ED25519, s.publicKey);
    signatures.push({ keyName: s.keyName, keyId, signature: await s.sign(message) });
  }
  return formatNote({ text, signatures });
}

function decodeUtf8(bytes: Uint8Array | string): string | null {
  if (typeof bytes === 'string') return bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

function parseSignatureLine(line: string): NoteSignature | null {
  if (!line.startsWith(SIG_PREFIX)) return null;
  const rest = line.slice(SIG_PREFIX.length);
  const space = rest.indexOf(' ');
  if (space < 0) return null;
  const keyName = rest.slice(0, space);
  const raw = decodeBase64Strict(rest.slice(space + 1));
  if (!isValidKeyName(keyName) || !raw || raw.length <= KEY_ID_BYTES) return null;
  return { keyName, keyId: raw.readUInt32BE(0), signature: new Uint8Array(raw.subarray(KEY_ID_BYTES)) };
}

/** Parses a signed note's wire form (bytes or text) without verifying any signature. */
export function parseNote(input: Uint8Array | string): NoteResult<Note> {
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.length;
  if (size > MAX_NOTE_BYTES) return { ok: false, reason: 'note is too large' };
  const msg = decodeUtf8(input);
  if (msg === null) return { ok: false, reason: 'note is not valid UTF-8' };
  if (hasControlChar(msg)) return { ok: false, reason: 'note has a control character' };
  const split = msg.lastIndexOf('\n\n');
  if (split < 0) return { ok: false, reason: 'note has no signature block' };
  const text = msg.slice(0, split + 1);
  const block = msg.slice(split + 2);
  if (block.length === 0 || !block.endsWith('\n')) return { ok: false, reason: 'signature block must end with a newline' };
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) return { ok: false, reason: 'note has too many signatures' };
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    const sig = parseSignatureLine(line);
    if (!sig) return { ok: false, reason: 'malformed signature line' };
    signatures.push(sig);
  }
  return { ok: true, value: { text, signatures } };
}

/** A note whose signatures by known keys all verified (at least one). */
export interface VerifiedNote extends Note {
  /** The known keys whose signature verified, in note order, each once. */
  readonly verifiedBy: readonly NoteVerifierKey[];
}

/**
 * Parses `input` and checks it against `known` Ed25519 keys. Signatures by unknown keys (name and
 * ID not both matching) are ignored; a failing signature by a known key rejects the note, and so
 * does a note no known key signed. Sync: Ed25519 verification is CPU work, so the service calls it
 * from the pool or a CLI.
 */
export function verifyNote(input: Uint8Array | string, known: readonly NoteVerifierKey[]): NoteResult<VerifiedNote> {
  const parsed = parseNote(input);
  if (!parsed.ok) return parsed;
  const note = parsed.value;
  const message = Buffer.from(note.text, 'utf8');
  const verifiedBy: NoteVerifierKey[] = [];
  for (const sig of note.signatures) {
    const key = known.find((k) => k.keyName === sig.keyName && k.keyId === sig.keyId);
    if (!key || verifiedBy.includes(key)) continue;
    if (sig.signature.length !== ED25519_SIGNATURE_BYTES) return { ok: false, reason: `signature by ${key.keyName} is malformed` };
    const [ok] = verifyEd25519Batch([{ publicKey: key.publicKey, message, signature: sig.signature }]);
    if (!ok) return { ok: false, reason: `signature by ${key.keyName} does not verify` };
    verifiedBy.push(key);
  }
  if (verifiedBy.length === 0) return { ok: false, reason: 'no known key signed the note' };
  return { ok: true, value: { ...note, verifiedBy } };
}

/**
 * Witness cosignatures (c2sp.org/tlog-cosignature, the Ed25519 `cosignature/v1` kind): a note
 * signature line `— <witness name> base64(keyId || timestamp || signature)`, where the key ID is
 * SHA-256(name || 0x0A || 0x04 || public key)[:4], the timestamp a big-endian u64 of POSIX seconds,
 * and the Ed25519 signature covers `cosignature/v1\ntime <t>\n` followed by the checkpoint's note
 * text. A witness's verifier key is a vkey of type 0x04: `<name>+<key ID hex>+base64(0x04 || key)`.
 * Lines and note framing come from signed-note.ts; this file adds only what the cosignature defines.
 */
import { type Ed25519Check, verifyEd25519Batch } from '../chain/keys/ed25519.ts';
import { decodeBase64Strict, formatSignatureLine, isValidKeyName, noteKeyId, parseNote } from './signed-note.ts';

/** Signature type byte of timestamped Ed25519 witness cosignatures. */
export const COSIGNATURE_TYPE_ED25519 = 0x04;
const PUBLIC_KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;
const TIMESTAMP_BYTES = 8;
const HEX8_RE = /^[0-9a-f]{8}$/;

/** A witness's public key as its vkey names it. */
export interface CosignerKey {
  readonly name: string;
  readonly keyId: number;
  readonly publicKey: Uint8Array;
}

/** One cosignature read from a line. */
export interface Cosignature {
  readonly key: CosignerKey;
  /** POSIX seconds. */
  readonly timestamp: number;
}

/** The message a cosignature signs. */
export function cosignedMessage(noteText: string, timestamp: number): Uint8Array {
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${noteText}`, 'utf8');
}

/** The key of a witness named `name` with Ed25519 public key `publicKey`. */
export function cosignerKey(name: string, publicKey: Uint8Array): CosignerKey {
  if (!isValidKeyName(name)) throw new TypeError('invalid witness key name');
  if (publicKey.length !== PUBLIC_KEY_BYTES) throw new TypeError('ed25519 public key must be 32 bytes');
  return { name, keyId: noteKeyId(name, COSIGNATURE_TYPE_ED25519, publicKey), publicKey };
}

/** The vkey of a witness key. */
export function encodeCosignerKey(key: CosignerKey): string {
  const body = Buffer.concat([Uint8Array.of(COSIGNATURE_TYPE_ED25519), key.publicKey]).toString('base64');
  return `${key.name}+${key.keyId.toString(16).padStart(8, '0')}+${body}`;
}

/** Reads a witness vkey (type 0x04), checking its hash against its key; null when it is not one. */
export function decodeCosignerKey(vkey: string): CosignerKey | null {
  const parts = typeof vkey === 'string' ? vkey.split('+') : [];
  if (parts.length < 3) return null;
  const [name, hash] = parts as [string, string];
  const raw = decodeBase64Strict(parts.slice(2).join('+'));
  if (!isValidKeyName(name) || !HEX8_RE.test(hash) || !raw) return null;
  if (raw[0] !== COSIGNATURE_TYPE_ED25519 || raw.length !== 1 + PUBLIC_KEY_BYTES) return null;
  const key = cosignerKey(name, new Uint8Array(raw.subarray(1)));
  return key.keyId.toString(16).padStart(8, '0') === hash ? key : null;
}

/** The cosignature line of `noteText` at `timestamp`, with the witness's signing function. */
export function cosignatureLine(key: CosignerKey, sign: (message: Uint8Array) => Uint8Array, noteText: string, timestamp: number): string {
  const stamp = Buffer.alloc(TIMESTAMP_BYTES);
  stamp.writeBigUInt64BE(BigInt(timestamp));
  const signature = sign(cosignedMessage(noteText, timestamp));
  return formatSignatureLine({ keyName: key.name, keyId: key.keyId, signature: Buffer.concat([stamp, signature]) });
}

/** A cosignature line of a known key, read but not yet verified, with the check that verifies it. */
export interface CosignatureCandidate extends Cosignature {
  readonly line: string;
  readonly check: Ed25519Check;
}

/**
 * The lines after a checkpoint's text that claim to be cosignatures by `keys`: at most one per key
 * (the first), lines of unknown keys ignored. Lines and text are adversarial input; the checks are
 * the caller's to run (in the pool on the service, at once elsewhere).
 */
export function cosignatureCandidates(noteText: string, lines: readonly string[], keys: readonly CosignerKey[]): CosignatureCandidate[] {
  const found: CosignatureCandidate[] = [];
  for (const raw of lines) {
    const line = raw.endsWith('\n') ? raw : `${raw}\n`;
    const parsed = parseNote(`${noteText}\n${line}`);
    const sig = parsed.ok && parsed.value.signatures.length === 1 ? parsed.value.signatures[0]! : null;
    const key = sig && keys.find((k) => k.name === sig.keyName && k.keyId === sig.keyId);
    if (!sig || !key || found.some((f) => f.key === key) || sig.signature.length !== TIMESTAMP_BYTES + SIGNATURE_BYTES) continue;
    const timestamp = Buffer.from(sig.signature.subarray(0, TIMESTAMP_BYTES)).readBigUInt64BE();
    if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) continue;
    const message = cosignedMessage(noteText, Number(timestamp));
    found.push({ key, timestamp: Number(timestamp), line, check: { publicKey: key.publicKey, message, signature: sig.signature.subarray(TIMESTAMP_BYTES) } });
  }
  return found;
}

/** The cosignatures among `lines` that verify against `keys` (checked at once, on this thread). */
export function verifiedCosignatures(noteText: string, lines: readonly string[], keys: readonly CosignerKey[]): CosignatureCandidate[] {
  const candidates = cosignatureCandidates(noteText, lines, keys);
  const verdicts = verifyEd25519Batch(candidates.map((c) => c.check));
  return candidates.filter((_, i) => verdicts[i]);
}

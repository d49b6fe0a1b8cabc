/**
 * The witness's signing key file: one line `PRIVATE+KEY+<name>+<key ID hex>+base64(0x04 || seed)`,
 * the layout of Go's note signer keys with the cosignature type byte, written with mode 0600 and
 * never overwritten. The seed never leaves this module except inside the signing function; a file
 * others can read is tightened to 0600 before it is read.
 */
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { COSIGNATURE_TYPE_ED25519, type CosignerKey, cosignerKey, encodeCosignerKey } from '../tlog/cosignature.ts';
import { createEd25519Signer } from '../chain/keys/ed25519.ts';
import { decodeBase64Strict, isValidKeyName } from '../tlog/signed-note.ts';
import { publicKeyOfSeed } from '../receipts/identity.ts';

const KEY_FILE_MODE = 0o600;
const SEED_BYTES = 32;
const PREFIX = 'PRIVATE+KEY+';

/** A loaded witness key: its public half and a signer. */
export interface WitnessKey {
  readonly key: CosignerKey;
  readonly vkey: string;
  readonly sign: (message: Uint8Array) => Uint8Array;
}

function keyIdHex(key: CosignerKey): string {
  return key.keyId.toString(16).padStart(8, '0');
}

/** Creates a new key file for witness `name` (refusing to overwrite one); returns its vkey. */
export function createWitnessKeyFile(path: string, name: string): string {
  if (!isValidKeyName(name)) throw new Error('the witness name must be non-empty, without spaces or "+" (e.g. witness.example.org/w1)');
  const { privateKey } = generateKeyPairSync('ed25519');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const key = cosignerKey(name, publicKeyOfSeed(seed));
  const encoded = Buffer.concat([Uint8Array.of(COSIGNATURE_TYPE_ED25519), seed]).toString('base64');
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${PREFIX}${name}+${keyIdHex(key)}+${encoded}\n`, { mode: KEY_FILE_MODE, flag: 'wx' });
  return encodeCosignerKey(key);
}

/** Loads a witness key file; the error names the file, never its content. */
export function loadWitnessKey(path: string): WitnessKey {
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, KEY_FILE_MODE);
  const text = readFileSync(path, 'utf8').trim();
  const parts = text.startsWith(PREFIX) ? text.slice(PREFIX.length).split('+') : [];
  const bad = () => new Error(`${path} is not a witness key file (PRIVATE+KEY+<name>+<id>+<key>, made by x402-intel witness keygen)`);
  if (parts.length < 3) throw bad();
  const [name, hash] = parts as [string, string];
  const raw = decodeBase64Strict(parts.slice(2).join('+'));
  if (!isValidKeyName(name) || !raw || raw.length !== 1 + SEED_BYTES || raw[0] !== COSIGNATURE_TYPE_ED25519) throw bad();
  const seed = new Uint8Array(raw.subarray(1));
  const key = cosignerKey(name, publicKeyOfSeed(seed));
  if (keyIdHex(key) !== hash) throw bad();
  return { key, vkey: encodeCosignerKey(key), sign: createEd25519Signer(seed) };
}

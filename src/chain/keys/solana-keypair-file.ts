/**
 * A Solana CLI keypair file (`solana-keygen new` writes one: a JSON array of the 64 bytes of the
 * ed25519 secret seed and public key, mode 0600) as a kit signer for the official x402 client.
 * The file must be private to its owner; the key bytes are wiped once the signer holds them, and
 * no error message carries any part of the file.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createFileOnceSync } from '../../durable/atomic-replace.ts';
import { makeDirSync } from '../../durable/file-sync.ts';
import { dirname } from 'node:path';
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';
import { ConfigError } from '../../errors.ts';
import { readPrivateKeyFile } from './private-key-file.ts';

/** The signer type, for modules that may not import kit themselves. */
export type { KeyPairSigner } from '@solana/kit';

/** Bytes of a Solana CLI keypair: 32 of secret seed, then 32 of public key. */
const KEYPAIR_BYTES = 64;
const WHAT = 'Solana keypair file';

/** The 64 bytes of the keypair JSON, or null when the text is not such an array. */
function keypairBytes(text: string): Uint8Array | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== KEYPAIR_BYTES) return null;
  if (!value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return null;
  const bytes = Uint8Array.from(value as number[]);
  value.fill(0);
  return bytes;
}

/** Reads a keypair file into a signer; throws a ConfigError (without the key) when absent, loose or malformed. */
export async function readSolanaKeypairFile(path: string): Promise<KeyPairSigner> {
  const bytes = keypairBytes(readPrivateKeyFile(path, WHAT));
  if (bytes === null) throw new ConfigError([`${WHAT} ${path} does not hold a JSON array of ${KEYPAIR_BYTES} bytes (the solana-keygen format)`]);
  try {
    return await createKeyPairSignerFromBytes(bytes);
  } catch {
    throw new ConfigError([`${WHAT} ${path}: its public key does not match its secret key`]);
  } finally {
    bytes.fill(0);
  }
}

/**
 * Writes a fresh keypair file in the solana-keygen format (mode 0600, directory 0700) and returns
 * its signer; never overwrites: an existing file is a ConfigError, so no key is ever lost.
 */
export async function createSolanaKeypairFile(path: string): Promise<KeyPairSigner> {
  if (existsSync(path)) throw new ConfigError([`${WHAT} ${path} already exists; it is left as it is`]);
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const bytes = [...Buffer.from(jwk.d!, 'base64url'), ...Buffer.from(jwk.x!, 'base64url')];
  makeDirSync(dirname(path));
  createFileOnceSync(path, `${JSON.stringify(bytes)}\n`, 0o600);
  bytes.fill(0);
  return readSolanaKeypairFile(path);
}

/** A signer from the 64 bytes of a keypair (secret seed, then public key); throws when they do not match. */
export function solanaSignerFromBytes(bytes: Uint8Array): Promise<KeyPairSigner> {
  if (bytes.length !== KEYPAIR_BYTES) throw new Error(`a Solana keypair is ${KEYPAIR_BYTES} bytes`);
  return createKeyPairSignerFromBytes(bytes);
}

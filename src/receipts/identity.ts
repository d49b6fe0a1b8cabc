/**
 * The service identity: one ed25519 key that signs receipts and co-signs Solana payments as fee
 * payer. Stored as a Solana CLI JSON keypair (64 numbers: 32-byte seed then 32-byte public key),
 * created with mode 0600 when absent. The secret never leaves this module except as the bytes
 * the worker pool needs to sign.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { createFileOnceSync } from '../durable/atomic-replace.ts';
import { makeDirSync } from '../durable/file-sync.ts';
import { dirname } from 'node:path';
import { encodeBase58 } from '../chain/solana/base58.ts';
import { ConfigError } from '../errors.ts';

/** PKCS#8 DER prefix of an ed25519 private key; the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const KEY_FILE_MODE = 0o600;

export interface Identity {
  /** Base58 public key: the fee payer and `signedBy` of receipts. */
  readonly publicKey: string;
  readonly publicKeyBytes: Uint8Array;
  /** Solana CLI layout: seed (32) followed by public key (32). Never log or serialize. */
  readonly secretKey: Uint8Array;
  /** True when this start created the key file. */
  readonly created: boolean;
}

/** The ed25519 public key of a 32-byte seed. */
export function publicKeyOfSeed(seed: Uint8Array): Uint8Array {
  const priv = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const jwk = createPublicKey(priv).export({ format: 'jwk' });
  return new Uint8Array(Buffer.from(jwk.x!, 'base64url'));
}

function parseKeyFile(path: string): Uint8Array {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new ConfigError([`keypair file ${path} is not JSON`]);
  }
  if (!Array.isArray(parsed) || parsed.length !== 64 || !parsed.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw new ConfigError([`keypair file ${path} is not a Solana CLI keypair (64 byte values)`]);
  }
  const bytes = Uint8Array.from(parsed as number[]);
  const expected = publicKeyOfSeed(bytes.subarray(0, 32));
  if (!Buffer.from(expected).equals(Buffer.from(bytes.subarray(32)))) {
    throw new ConfigError([`keypair file ${path}: public half does not match the secret half`]);
  }
  return bytes;
}

/** Loads the identity keypair, creating it (mode 0600) on first start. */
export function loadOrCreateIdentity(path: string): Identity {
  let created = false;
  if (!existsSync(path)) {
    makeDirSync(dirname(path));
    const { privateKey } = generateKeyPairSync('ed25519');
    const jwk = privateKey.export({ format: 'jwk' });
    const seed = Buffer.from(jwk.d!, 'base64url');
    const pub = Buffer.from(jwk.x!, 'base64url');
    // Durable before anything is signed with it; never overwrites a key file another process created meanwhile.
    createFileOnceSync(path, JSON.stringify([...seed, ...pub]), KEY_FILE_MODE);
    created = true;
  } else if ((statSync(path).mode & 0o077) !== 0) {
    // A key readable by others is tightened rather than refused: the operator keeps running.
    chmodSync(path, KEY_FILE_MODE);
  }
  const secretKey = parseKeyFile(path);
  const publicKeyBytes = secretKey.slice(32);
  return Object.freeze({ publicKey: encodeBase58(publicKeyBytes), publicKeyBytes, secretKey, created });
}

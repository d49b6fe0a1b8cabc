/**
 * EVM secret keys on disk (the settlement relayer's, and generated test wallets): one 0x hex
 * key per file, mode 0600. A key file readable by group or others is refused, as ssh does, and a
 * key never appears in an error message or log.
 */
import { existsSync } from 'node:fs';
import { createFileOnceSync } from '../../durable/atomic-replace.ts';
import { makeDirSync } from '../../durable/file-sync.ts';
import { dirname } from 'node:path';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { ConfigError } from '../../errors.ts';
import { readPrivateKeyFile } from './private-key-file.ts';

const HEX_KEY_RE = /^0x[0-9a-fA-F]{64}$/;

export type EvmHexKey = `0x${string}`;

/** A fresh random secp256k1 key. */
export function generateEvmKey(): EvmHexKey {
  return generatePrivateKey();
}

/** Reads an existing key file; throws (without the key) when absent, loose or malformed. */
export function readEvmKeyFile(path: string): EvmHexKey {
  const key = readPrivateKeyFile(path, 'EVM key file').trim();
  if (!HEX_KEY_RE.test(key)) throw new ConfigError([`EVM key file ${path} does not hold a 0x-prefixed 32-byte hex key`]);
  return key as EvmHexKey;
}

/** Reads the key file, creating it (0600, directory 0700) with a fresh key when absent. */
export function loadOrCreateEvmKey(path: string): EvmHexKey {
  if (!existsSync(path)) {
    makeDirSync(dirname(path));
    createFileOnceSync(path, `${generateEvmKey()}\n`, 0o600);
  }
  return readEvmKeyFile(path);
}

/** The checksummed address of a key. */
export function evmAddressOfKey(key: EvmHexKey): string {
  return privateKeyToAccount(key).address;
}

/**
 * A viem local account for a key: `address` + `signTypedData`, which is exactly the x402
 * ClientEvmSigner shape (tests hand it to the official `@x402/evm` client).
 */
export function evmAccountFromKey(key: EvmHexKey): PrivateKeyAccount {
  return privateKeyToAccount(key);
}

/**
 * A locally generated EVM key for the embedded default: its address receives Base payments on
 * the local chain when no `--evm-pay-to` is configured. Stored as a 0x hex private key, mode 0600.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';

const HEX_KEY_RE = /^0x[0-9a-fA-F]{64}$/;

/** Loads or creates the key file and returns its checksummed address (the key stays on disk). */
export function loadOrCreateEvmAddress(path: string): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, `${generatePrivateKey()}\n`, { mode: 0o600, flag: 'wx' });
  }
  const key = readFileSync(path, 'utf8').trim();
  if (!HEX_KEY_RE.test(key)) throw new Error(`EVM key file ${path} does not hold a 0x-prefixed 32-byte hex key`);
  return privateKeyToAddress(key as `0x${string}`);
}

/**
 * The x402-intel CLI run as a user runs it: a child process, from a working directory of the
 * test's choosing, with its own HOME; and the key files a user holds (a Solana CLI keypair, an EVM
 * key file), written with the mode the test asks for. The process runs the CLI's bundle that the
 * run's global setup built from the sources as they are (dist/cli/, scripts/build-cli.ts): through
 * the launcher users run (bin/x402-intel.mjs, the TypeScript loader) each start cost about 5 s of
 * CPU, against about 0.6 s; `{ launcher: true }` runs the launcher itself (cli.test.ts does, once).
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import bs58 from 'bs58';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';

/** The launcher the package's `bin` names. */
export const CLI_LAUNCHER = fileURLToPath(new URL('../../bin/x402-intel.mjs', import.meta.url));
/** The same CLI bundled (built by test/helpers/build-setup.ts): what the tests' child processes run. */
export const CLI_BIN = fileURLToPath(new URL('../../dist/cli/x402-intel.js', import.meta.url));
/** A paid call waits for settlement; the machine may be loaded. */
const CLI_TIMEOUT_MS = 240_000;

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI with `args` in `cwd` with HOME=`home` (and no $X402_INTEL_URL unless given); through its launcher with `launcher`. */
export function runCliProcess(
  args: readonly string[],
  o: { readonly cwd: string; readonly home: string; readonly env?: Record<string, string>; readonly launcher?: boolean },
): Promise<CliRun> {
  const { X402_INTEL_URL: _unset, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [o.launcher ? CLI_LAUNCHER : CLI_BIN, ...args],
      { cwd: o.cwd, env: { ...inherited, HOME: o.home, ...o.env }, timeout: CLI_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Writes a fresh Solana CLI keypair file (JSON array of 64 bytes) at `path`; returns its base58 address. */
export function writeSolanaKeypair(path: string, mode = 0o600): string {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const publicKey = Buffer.from(jwk.x!, 'base64url');
  writeFileSync(path, JSON.stringify([...Buffer.from(jwk.d!, 'base64url'), ...publicKey]), { mode });
  chmodSync(path, mode);
  return bs58.encode(publicKey);
}

/** Writes a fresh EVM key file (one 0x hex key) at `path`; returns its checksummed address. */
export function writeEvmKey(path: string, mode = 0o600): string {
  const key = generateEvmKey();
  writeFileSync(path, `${key}\n`, { mode });
  chmodSync(path, mode);
  return evmAddressOfKey(key);
}

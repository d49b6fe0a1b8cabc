/**
 * The payer's key for a paid call: a Solana CLI keypair file (default ~/.config/solana/id.json,
 * where solana-keygen writes one) or an EVM key file (one 0x hex key). Both must be mode 0600;
 * any problem with a key file exits 6 with a sentence that names the file and never its content.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { evmAccountFromKey, readEvmKeyFile } from '../chain/keys/evm-key-file.ts';
import { readSolanaKeypairFile } from '../chain/keys/solana-keypair-file.ts';
import { ConfigError } from '../errors.ts';
import { CliError, EXIT, usageError } from './cli-error.ts';
import type { PayerKey } from './x402-payer.ts';

/** Where `solana-keygen new` writes the default keypair, under the home directory. */
export const DEFAULT_KEYPAIR_PATH = join('.config', 'solana', 'id.json');

/** The networks `--network` accepts. */
export const PAY_NETWORKS = ['solana', 'base'] as const;
/** A network `call` can pay on. */
export type PayNetwork = (typeof PAY_NETWORKS)[number];

/** Which key to read, and where relative paths and `~` point. */
export interface KeyOptions {
  readonly network: PayNetwork;
  readonly keypair?: string | undefined;
  readonly evmKey?: string | undefined;
  readonly home: string;
  readonly cwd: string;
}

/** `~/x` -> `<home>/x`; relative paths against `cwd`. */
export function expandPath(path: string, home: string, cwd: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return resolve(cwd, path);
}

/** `--network` as a PayNetwork; a usage error for anything else. */
export function parseNetwork(value: string | undefined): PayNetwork {
  const network = value ?? 'solana';
  if (!(PAY_NETWORKS as readonly string[]).includes(network))
    throw usageError(`--network must be one of ${PAY_NETWORKS.join(', ')}; got "${network.slice(0, 32)}"`);
  return network as PayNetwork;
}

/** The key file's name a newcomer is told to make when none is given: the README's. */
const NEW_KEY_FILE = { solana: 'payer.json', base: 'base.key' } as const;

/** A key-file problem as exit 6; a file that is not there gets the keygen command that makes one. */
function keyFileError(err: ConfigError, network: PayNetwork, path: string, given: string | undefined): CliError {
  const problem = err.problems.join('; ');
  if (existsSync(path)) return new CliError('key_file', problem, EXIT.keyFile);
  const file = given ?? NEW_KEY_FILE[network];
  const keygen = `x402-intel keygen ${file}${network === 'base' ? ' --evm' : ''}`;
  const then = given === undefined ? `, then pay with --keypair ${file}` : '';
  return new CliError('key_file', `${problem}; make one with: ${keygen}${then}`, EXIT.keyFile);
}

/** Reads the key the network needs; a key-file problem is exit 6, a missing or misplaced option exit 2. */
export async function loadPayerKey(o: KeyOptions): Promise<PayerKey> {
  if (o.network === 'solana' && o.evmKey !== undefined) throw usageError('--evm-key pays on Base: add --network base, or leave it out');
  if (o.network === 'base' && o.keypair !== undefined) throw usageError('--keypair pays on Solana: leave out --network base, or give --evm-key');
  if (o.network === 'base' && o.evmKey === undefined) throw usageError('--network base needs --evm-key <file> (a file holding one 0x hex key, mode 0600)');
  const given = o.network === 'solana' ? o.keypair : o.evmKey;
  const path = expandPath(given ?? join(o.home, DEFAULT_KEYPAIR_PATH), o.home, o.cwd);
  try {
    if (o.network === 'solana') return { network: 'solana', signer: await readSolanaKeypairFile(path) };
    const key = readEvmKeyFile(path);
    return { network: 'base', key, account: evmAccountFromKey(key) };
  } catch (err) {
    if (err instanceof ConfigError) throw keyFileError(err, o.network, path, given);
    throw err;
  }
}

/** The public address that pays (printed; the key never is). */
export function payerAddress(key: PayerKey): string {
  return key.network === 'solana' ? key.signer.address : key.account.address;
}

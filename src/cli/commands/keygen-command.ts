/**
 * `x402-intel keygen <file> [--evm]`: a new wallet to pay from, as a key file the other commands
 * read: a Solana CLI keypair (the solana-keygen format) or, with --evm, a 0x hex key for Base.
 * Mode 0600; an existing file is never overwritten. Prints the address, never the key.
 */
import { resolve } from 'node:path';
import { evmAddressOfKey, loadOrCreateEvmKey } from '../../chain/keys/evm-key-file.ts';
import { createSolanaKeypairFile } from '../../chain/keys/solana-keypair-file.ts';
import { takePositionals } from '../cli-args.ts';
import { CliError, EXIT, type ExitCode } from '../cli-error.ts';
import type { CommandContext } from '../command-context.ts';
import { existsSync } from 'node:fs';

/** Runs `keygen`. */
export async function runKeygen(ctx: CommandContext): Promise<ExitCode> {
  const [file] = takePositionals(ctx.args, ['<file>']) as [string];
  const path = resolve(ctx.cwd, file);
  const evm = ctx.args.options.has('evm');
  if (existsSync(path)) throw new CliError('key_file_exists', `${path} already exists; it is left as it is (choose another file)`, EXIT.keyFile);
  const address = evm ? evmAddressOfKey(loadOrCreateEvmKey(path)) : (await createSolanaKeypairFile(path)).address;
  const network = evm ? 'base' : 'solana';
  // `localnet fund` reads the network from the key file; `call` needs it said.
  const key = evm ? `--evm-key ${file}` : `--keypair ${file}`;
  const pay = evm ? `--network base ${key}` : key;
  ctx.out.result({ file: path, network, address }, () =>
    [
      `${network} key written to ${path} (mode 0600)`,
      `address ${address}`,
      `fund it on the localnet: x402-intel localnet fund ${key}`,
      `pay with it: x402-intel call /v1/epoch ${pay}`,
    ].join('\n'),
  );
  return EXIT.ok;
}

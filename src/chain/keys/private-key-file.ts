/**
 * Secret key files on disk, whatever their format (the service's EVM keys, a payer's Solana CLI
 * keypair): a file open to group or others is refused, as ssh refuses a loose private key, and
 * neither the key nor any part of the file ever appears in an error message.
 */
import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../../errors.ts';

/** Permission bits that must be clear on a key file (group and others). */
const GROUP_OTHER_BITS = 0o077;

/** Throws a ConfigError naming `path` (never its content) unless it is a file only its owner can open. */
export function assertPrivateFileMode(path: string, what: string): void {
  let mode: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new ConfigError([`${what} ${path} is not a file`]);
    mode = stat.mode;
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError([code === 'ENOENT' ? `${what} ${path} does not exist` : `${what} ${path} cannot be read (${code ?? 'error'})`]);
  }
  if ((mode & GROUP_OTHER_BITS) !== 0) {
    const octal = (mode & 0o777).toString(8);
    throw new ConfigError([`${what} ${path} is readable by group or others (mode ${octal}; 0600 required): chmod 600 it`]);
  }
}

/** The text of a key file that passed `assertPrivateFileMode`. */
export function readPrivateKeyFile(path: string, what: string): string {
  assertPrivateFileMode(path, what);
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([`${what} ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`]);
  }
}

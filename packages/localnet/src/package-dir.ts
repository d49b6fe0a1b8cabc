/**
 * The localnet package's directory, found through Node's resolution of the package itself rather
 * than relative to this module: the service's build (scripts/build-server.ts) bundles this code
 * into dist/server/, where paths relative to the module would point elsewhere. Files the localnet
 * reads at run time (fixtures, the compiled contract) are named from here.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Absolute path of packages/localnet (through the workspace link when bundled). */
export const LOCALNET_PACKAGE_DIR = dirname(createRequire(import.meta.url).resolve('@solana-x402-intel/localnet/package.json'));

/** An absolute path inside the package. */
export const localnetPath = (...parts: string[]): string => join(LOCALNET_PACKAGE_DIR, ...parts);

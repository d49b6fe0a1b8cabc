/**
 * Loads the compiled LocalUsdc (contracts/build/LocalUsdc.json, compiled from
 * contracts/LocalUsdc.sol by compile-local-usdc.ts before the local EVM starts).
 */
import { readFileSync } from 'node:fs';
import { localnetPath } from '../package-dir.ts';

/** Where the compiled artifact is written. */
export const LOCAL_USDC_ARTIFACT_PATH = localnetPath('contracts', 'build', 'LocalUsdc.json');

export interface LocalUsdcArtifact {
  readonly bytecode: string;
  /** Solidity signature -> 4-byte selector hex (no 0x). */
  readonly methodIdentifiers: Readonly<Record<string, string>>;
  readonly abi: readonly unknown[];
}

let cached: LocalUsdcArtifact | null = null;

/** The artifact, read once; a missing build is a clear error naming the command to run. */
export function loadLocalUsdcArtifact(): LocalUsdcArtifact {
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(LOCAL_USDC_ARTIFACT_PATH, 'utf8');
  } catch {
    throw new Error(`${LOCAL_USDC_ARTIFACT_PATH} is missing: run \`npm run build:contracts\` (it compiles contracts/LocalUsdc.sol)`);
  }
  const parsed = JSON.parse(text) as LocalUsdcArtifact;
  if (!/^0x[0-9a-f]+$/.test(parsed.bytecode) || typeof parsed.methodIdentifiers !== 'object') {
    throw new Error(`${LOCAL_USDC_ARTIFACT_PATH} is not a LocalUsdc build artifact: rebuild with \`npm run build:contracts\``);
  }
  cached = parsed;
  return parsed;
}

/** The selector of a function, failing loudly if the contract does not have it. */
export function selectorOf(artifact: LocalUsdcArtifact, signature: string): string {
  const selector = artifact.methodIdentifiers[signature];
  if (!selector) throw new Error(`LocalUsdc has no function ${signature}`);
  return selector;
}

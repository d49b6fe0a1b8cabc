/**
 * Loads the compiled LocalUsdc (contracts/build/LocalUsdc.json, written by
 * `npm run build:contracts` from contracts/LocalUsdc.sol). The localnet never compiles: solc
 * runs in the build script only.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the build script writes the artifact. */
export const LOCAL_USDC_ARTIFACT_PATH = fileURLToPath(new URL('../../contracts/build/LocalUsdc.json', import.meta.url));

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

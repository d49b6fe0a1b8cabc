/**
 * Compiles contracts/LocalUsdc.sol with solc-js (wasm, no download) into
 * contracts/build/LocalUsdc.json: abi, creation bytecode and method selectors. The output is
 * deterministic (pinned compiler from package-lock, fixed settings), so it is built rather than
 * committed: by `npm run build:contracts`, or by the embedded localnet's start when the artifact is
 * missing or older than the source. Mainnet mode never loads the localnet, so it never compiles.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { localnetPath } from '../package-dir.ts';
import { LOCAL_USDC_ARTIFACT_PATH } from './local-usdc-artifact.ts';

const SOURCE_PATH = localnetPath('contracts', 'LocalUsdc.sol');
const SOURCE_NAME = 'LocalUsdc.sol';
const CONTRACT = 'LocalUsdc';
/** Cancun is what Base runs and what the local EVM's hardfork includes. */
const EVM_VERSION = 'cancun';
const OPTIMIZER_RUNS = 200;

interface SolcError {
  readonly severity: 'error' | 'warning' | 'info';
  readonly formattedMessage: string;
}

interface SolcOutput {
  readonly errors?: readonly SolcError[];
  readonly contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; methodIdentifiers: Record<string, string> } }>>;
}

/** Compiles and writes the artifact; returns its path. Throws with solc's messages on errors. */
export async function compileLocalUsdc(): Promise<string> {
  // solc-js is a large wasm module: loaded only when a compile is due.
  const solc = (await import('solc')).default;
  const input = {
    language: 'Solidity',
    sources: { [SOURCE_NAME]: { content: readFileSync(SOURCE_PATH, 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: OPTIMIZER_RUNS },
      evmVersion: EVM_VERSION,
      outputSelection: { [SOURCE_NAME]: { [CONTRACT]: ['abi', 'evm.bytecode.object', 'evm.methodIdentifiers'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const compiled = output.contracts?.[SOURCE_NAME]?.[CONTRACT];
  if (!compiled) throw new Error(`solc produced no ${CONTRACT}`);
  const artifact = {
    contractName: CONTRACT,
    compiler: `solc-js ${solc.version()}`,
    settings: { evmVersion: EVM_VERSION, optimizerRuns: OPTIMIZER_RUNS },
    abi: compiled.abi,
    bytecode: `0x${compiled.evm.bytecode.object}`,
    methodIdentifiers: compiled.evm.methodIdentifiers,
  };
  mkdirSync(dirname(LOCAL_USDC_ARTIFACT_PATH), { recursive: true });
  writeFileSync(LOCAL_USDC_ARTIFACT_PATH, `${JSON.stringify(artifact, null, 2)}\n`);
  return LOCAL_USDC_ARTIFACT_PATH;
}

const mtimeMs = (path: string): number | null => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
};

/** Compiles when the artifact is missing or older than the source; true when it compiled. */
export async function ensureLocalUsdcArtifact(): Promise<boolean> {
  const built = mtimeMs(LOCAL_USDC_ARTIFACT_PATH);
  if (built !== null && built >= (mtimeMs(SOURCE_PATH) ?? 0)) return false;
  await compileLocalUsdc();
  return true;
}

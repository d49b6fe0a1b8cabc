/**
 * Compiles contracts/LocalUsdc.sol with solc-js (wasm, no download) and writes
 * contracts/build/LocalUsdc.json: abi, creation bytecode and method selectors. Run by
 * `npm run build:contracts` before start and test. The output is deterministic (pinned compiler
 * from package-lock, fixed settings), so it is built rather than committed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
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
export function buildContracts(): string {
  const input = {
    language: 'Solidity',
    sources: { [SOURCE_NAME]: { content: readFileSync(resolve(ROOT, 'contracts', SOURCE_NAME), 'utf8') } },
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
  const out = resolve(ROOT, 'contracts', 'build', `${CONTRACT}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(artifact, null, 2)}\n`);
  return out;
}

const started = performance.now();
const path = buildContracts();
console.log(`build:contracts wrote ${path} in ${Math.round(performance.now() - started)} ms`);

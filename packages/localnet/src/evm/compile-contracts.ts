/**
 * Compiles every contracts/*.sol with solc-js (wasm, no download) in one run and writes one
 * artifact per local contract into contracts/build/<Name>.json: abi, creation and runtime
 * bytecode, method selectors. The output is deterministic (pinned compiler from package-lock,
 * fixed settings), so it is built rather than committed: by `npm run build:contracts`, or by the
 * embedded localnet's start when an artifact is missing or older than any source. Mainnet mode
 * never loads the localnet, so it never compiles.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { localnetPath } from '../package-dir.ts';
import { artifactPath, LOCAL_CONTRACTS, type LocalContractName } from './contract-artifacts.ts';

const SOURCE_DIR = localnetPath('contracts');
/** Cancun is what Base runs and what the local EVM's hardfork includes (EIP-1153 transient storage). */
const EVM_VERSION = 'cancun';
const OPTIMIZER_RUNS = 200;
/** Placed with set-code, which runs no constructor: these must not rely on one. */
const PLACED: readonly LocalContractName[] = ['X402BatchSettlement', 'Erc3009DepositCollector', 'Multicall3'];

interface SolcError {
  readonly severity: 'error' | 'warning' | 'info';
  readonly formattedMessage: string;
}

interface SolcContract {
  readonly abi: unknown[];
  readonly evm: {
    readonly bytecode: { readonly object: string };
    readonly deployedBytecode: { readonly object: string; readonly immutableReferences?: Record<string, unknown> };
    readonly methodIdentifiers: Record<string, string>;
  };
}

interface SolcOutput {
  readonly errors?: readonly SolcError[];
  readonly contracts?: Record<string, Record<string, SolcContract>>;
}

const sourceFiles = (): string[] => readdirSync(SOURCE_DIR).filter((f) => f.endsWith('.sol'));

/** The solc standard-JSON input: every source, so imports between them resolve by file name. */
function solcInput(): unknown {
  const sources = Object.fromEntries(sourceFiles().map((f) => [f, { content: readFileSync(`${SOURCE_DIR}/${f}`, 'utf8') }]));
  const selection = ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences', 'evm.methodIdentifiers'];
  return {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: OPTIMIZER_RUNS },
      evmVersion: EVM_VERSION,
      outputSelection: Object.fromEntries(LOCAL_CONTRACTS.map((name) => [`${name}.sol`, { [name]: selection }])),
    },
  };
}

/** Written to a temporary name then renamed, so a concurrent reader never sees half a file. */
function writeAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

function artifactOf(name: LocalContractName, compiled: SolcContract, compiler: string): string {
  const immutables = Object.keys(compiled.evm.deployedBytecode.immutableReferences ?? {});
  if (PLACED.includes(name) && immutables.length > 0) throw new Error(`${name} has immutables, which set-code placement would leave unset`);
  const artifact = {
    contractName: name,
    compiler,
    settings: { evmVersion: EVM_VERSION, optimizerRuns: OPTIMIZER_RUNS },
    abi: compiled.abi,
    bytecode: `0x${compiled.evm.bytecode.object}`,
    deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
    methodIdentifiers: compiled.evm.methodIdentifiers,
  };
  return `${JSON.stringify(artifact, null, 2)}\n`;
}

/** Compiles and writes every artifact; returns their paths. Throws with solc's messages on errors. */
export async function compileLocalContracts(): Promise<string[]> {
  // solc-js is a large wasm module: loaded only when a compile is due. Its Emscripten runtime adds
  // a process-wide unhandledRejection handler as it loads; the localnet runs inside the service's
  // (or a test's) process, whose handlers are not solc's to set, so it is taken off again.
  const before = new Set(process.listeners('unhandledRejection'));
  const solc = (await import('solc')).default;
  for (const added of process.listeners('unhandledRejection')) if (!before.has(added)) process.off('unhandledRejection', added);
  const output = JSON.parse(solc.compile(JSON.stringify(solcInput()))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  return LOCAL_CONTRACTS.map((name) => {
    const compiled = output.contracts?.[`${name}.sol`]?.[name];
    if (!compiled) throw new Error(`solc produced no ${name}`);
    writeAtomically(artifactPath(name), artifactOf(name, compiled, `solc-js ${solc.version()}`));
    return artifactPath(name);
  });
}

const mtimeMs = (path: string): number | null => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
};

/** Compiles when an artifact is missing or older than any source; true when it compiled. */
export async function ensureLocalContractArtifacts(): Promise<boolean> {
  const newestSource = Math.max(0, ...sourceFiles().map((f) => mtimeMs(`${SOURCE_DIR}/${f}`) ?? 0));
  const built = LOCAL_CONTRACTS.map((name) => mtimeMs(artifactPath(name)));
  if (built.every((t) => t !== null && t >= newestSource)) return false;
  await compileLocalContracts();
  return true;
}

/**
 * Compiles every contracts/*.sol with solc-js (wasm, no download) in one run and writes one
 * artifact per local contract into contracts/build/<Name>.json: abi, creation and runtime
 * bytecode, method selectors, and the SHA-256 of the sources and the compiler it was built from.
 * The artifacts are committed: a compile costs about 10 s of CPU, which a first `npm start` on
 * a fresh clone should not pay for contracts nobody changed. An artifact whose recorded sources
 * or compiler are not the ones at hand is compiled again (by `npm run build:contracts`, or by the
 * embedded localnet's start), and test/unit/contract-artifacts.test.ts fails on a committed one
 * that is stale. File times say nothing here: a clone writes every file at the same moment.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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

const sourceFiles = (): string[] =>
  readdirSync(SOURCE_DIR)
    .filter((f) => f.endsWith('.sol'))
    .sort();

/** The SHA-256 over every source's name and bytes, in name order: what an artifact was built from. */
export function contractSourcesSha256(): string {
  const hash = createHash('sha256');
  for (const f of sourceFiles())
    hash
      .update(`${f}\0`)
      .update(readFileSync(`${SOURCE_DIR}/${f}`))
      .update('\0');
  return hash.digest('hex');
}

/** The installed solc-js's version, read from its package file (loading solc itself takes seconds). */
export function installedSolcVersion(): string {
  return (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('solc/package.json'), 'utf8')) as { version: string }).version;
}

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

function artifactOf(name: LocalContractName, compiled: SolcContract, compiler: string, sourcesSha256: string): string {
  const immutables = Object.keys(compiled.evm.deployedBytecode.immutableReferences ?? {});
  if (PLACED.includes(name) && immutables.length > 0) throw new Error(`${name} has immutables, which set-code placement would leave unset`);
  const artifact = {
    contractName: name,
    compiler,
    sourcesSha256,
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
  const sourcesSha256 = contractSourcesSha256();
  const output = JSON.parse(solc.compile(JSON.stringify(solcInput()))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  return LOCAL_CONTRACTS.map((name) => {
    const compiled = output.contracts?.[`${name}.sol`]?.[name];
    if (!compiled) throw new Error(`solc produced no ${name}`);
    writeAtomically(artifactPath(name), artifactOf(name, compiled, `solc-js ${solc.version()}`, sourcesSha256));
    return artifactPath(name);
  });
}

/** Why the artifacts must be compiled again, or null when every one is built from the sources and compiler at hand. */
export function staleArtifacts(): string | null {
  const sources = contractSourcesSha256();
  const solcVersion = installedSolcVersion();
  for (const name of LOCAL_CONTRACTS) {
    let recorded: { sourcesSha256?: unknown; compiler?: unknown };
    try {
      recorded = JSON.parse(readFileSync(artifactPath(name), 'utf8')) as typeof recorded;
    } catch {
      return `${name}'s artifact is missing`;
    }
    if (recorded.sourcesSha256 !== sources) return `${name}'s artifact was built from other sources`;
    if (typeof recorded.compiler !== 'string' || !recorded.compiler.startsWith(`solc-js ${solcVersion}+`))
      return `${name}'s artifact was built by another solc`;
  }
  return null;
}

/** Compiles when an artifact is missing or was built from other sources or another solc; true when it compiled. */
export async function ensureLocalContractArtifacts(progress: (line: string) => void = () => {}): Promise<boolean> {
  const stale = staleArtifacts();
  if (stale === null) return false;
  progress(`compiling the local contracts with solc (${stale}; about 10 s)`);
  await compileLocalContracts();
  return true;
}

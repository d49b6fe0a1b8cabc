/**
 * The compiled local contracts (contracts/build/<Name>.json, compiled from contracts/*.sol by
 * compile-contracts.ts before the local EVM starts): LocalUsdc, deployed by transaction, and the
 * x402 batch-settlement contracts plus Multicall3, placed at their canonical addresses.
 */
import { readFileSync } from 'node:fs';
import { localnetPath } from '../package-dir.ts';

/** The contracts compiled for the local EVM, by contract name (each from contracts/<Name>.sol). */
export const LOCAL_CONTRACTS = ['LocalUsdc', 'X402BatchSettlement', 'Erc3009DepositCollector', 'Multicall3'] as const;
export type LocalContractName = (typeof LOCAL_CONTRACTS)[number];

/** Where a contract's compiled artifact is written. */
export const artifactPath = (name: LocalContractName): string => localnetPath('contracts', 'build', `${name}.json`);

/** The artifact of LocalUsdc (kept as a name: the faucet and older callers use it). */
export const LOCAL_USDC_ARTIFACT_PATH = artifactPath('LocalUsdc');

export interface ContractArtifact {
  readonly contractName: string;
  /** Creation code (constructor included), for deployment by transaction. */
  readonly bytecode: string;
  /** Runtime code, for placement with set-code (which runs no constructor). */
  readonly deployedBytecode: string;
  /** Solidity signature -> 4-byte selector hex (no 0x). */
  readonly methodIdentifiers: Readonly<Record<string, string>>;
  readonly abi: readonly unknown[];
}

/** Kept for the LocalUsdc callers: the same shape. */
export type LocalUsdcArtifact = ContractArtifact;

const cache = new Map<LocalContractName, ContractArtifact>();

/** An artifact, read once; a missing or foreign build is a clear error naming the command to run. */
export function loadContractArtifact(name: LocalContractName): ContractArtifact {
  const cached = cache.get(name);
  if (cached) return cached;
  const path = artifactPath(name);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`${path} is missing: run \`npm run build:contracts\` (it compiles packages/localnet/contracts/*.sol)`);
  }
  const parsed = JSON.parse(text) as ContractArtifact;
  const hex = /^0x[0-9a-f]+$/;
  if (parsed.contractName !== name || !hex.test(parsed.bytecode) || !hex.test(parsed.deployedBytecode ?? '') || typeof parsed.methodIdentifiers !== 'object') {
    throw new Error(`${path} is not a ${name} build artifact: rebuild with \`npm run build:contracts\``);
  }
  cache.set(name, parsed);
  return parsed;
}

/** The LocalUsdc artifact. */
export function loadLocalUsdcArtifact(): ContractArtifact {
  return loadContractArtifact('LocalUsdc');
}

/** The selector of a function, failing loudly if the contract does not have it. */
export function selectorOf(artifact: ContractArtifact, signature: string): string {
  const selector = artifact.methodIdentifiers[signature];
  if (!selector) throw new Error(`${artifact.contractName} has no function ${signature}`);
  return selector;
}

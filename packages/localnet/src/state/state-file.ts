/**
 * The localnet's state file: one JSON document, replaced whole (a temporary file, fsync, rename,
 * fsync of the directory), so a crash leaves the previous save or the new one, never half. Big
 * integers and byte strings are tagged (`{"$n": "…"}`, `{"$b": "<base64>"}`) since JSON has neither.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvmJournalEntry } from './evm-journal.ts';
import type { SolanaState } from './solana-state.ts';

/** The file's name in the state directory. */
export const STATE_FILE = 'localnet-state.json';
/** Raised when the format changes; an older file is refused with the way to start over. */
export const STATE_VERSION = 1;

/** Everything a restart needs. */
export interface LocalnetState {
  readonly version: number;
  /** The world's seed: another seed is another world, which the saved accounts do not fit. */
  readonly seed: string;
  readonly savedAt: string;
  readonly solana: SolanaState;
  readonly evm: { readonly genesisTime: number; readonly journal: readonly EvmJournalEntry[] };
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return { $n: value.toString() };
  if (value instanceof Uint8Array) return { $b: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length !== 1) return value;
  const tagged = value as { $n?: unknown; $b?: unknown };
  if (typeof tagged.$n === 'string' && /^-?\d+$/.test(tagged.$n)) return BigInt(tagged.$n);
  if (typeof tagged.$b === 'string') return Uint8Array.from(Buffer.from(tagged.$b, 'base64'));
  return value;
}

/** The state's bytes as written. */
export function encodeState(state: LocalnetState): string {
  return `${JSON.stringify(state, replacer)}\n`;
}

/** Reads a state file's text; a file that does not parse or has another version is an error naming the way out. */
export function decodeState(text: string, where: string): LocalnetState {
  let state: LocalnetState;
  try {
    state = JSON.parse(text, reviver) as LocalnetState;
  } catch {
    throw new Error(`the localnet state ${where} does not parse; start with --fresh to start the localnet over`);
  }
  if (state?.version !== STATE_VERSION || typeof state.seed !== 'string' || !state.solana || !state.evm)
    throw new Error(`the localnet state ${where} is not a version ${STATE_VERSION} state; start with --fresh to start the localnet over`);
  return state;
}

/** The saved state in `dir`, or null when there is none. */
export function readState(dir: string): LocalnetState | null {
  const path = join(dir, STATE_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return decodeState(text, path);
}

/** Replaces the state in `dir` whole. */
export function writeState(dir: string, state: LocalnetState): void {
  const path = join(dir, STATE_FILE);
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeFileSync(fd, encodeState(state));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

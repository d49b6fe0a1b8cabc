/**
 * The local EVM's memory across restarts. EDR can neither dump nor load its state, so the
 * localnet keeps what changed it instead: every call that writes the chain (a sent transaction,
 * a faucet grant, a `hardhat_`/`evm_` control call), in order, with the timestamp of the block it
 * left behind. A restart builds the same genesis and set-up again (deterministic in the seed, the
 * genesis time kept in the state) and replays the journal, each mined block at its recorded
 * time: EIP-3009 authorizations check `block.timestamp` against their window, so a replay at
 * today's time would revert yesterday's payments. Once replayed, the chain's clock is brought
 * back to the wall clock with one empty block.
 */
import type { EdrChain, RpcAnswer } from '../evm/edr-chain.ts';

/** One recorded call that changed the chain. */
export interface EvmJournalEntry {
  readonly method: string;
  readonly params: readonly unknown[];
  /** The latest block's number and timestamp once the call returned. */
  readonly block: number;
  readonly timestamp: number;
}

/** Calls that only steer block time: the mined blocks' recorded timestamps carry their effect. */
const TIME_ONLY = new Set(['evm_setNextBlockTimestamp', 'evm_increaseTime', 'evm_setTime']);
/** Control calls that read and write nothing. */
const READS = new Set(['hardhat_metadata', 'hardhat_getAutomine', 'hardhat_getStackTraceFailuresCount']);

/** Whether a call can change the chain's state (and so goes into the journal). */
export function writesChain(method: string): boolean {
  if (method === 'eth_sendRawTransaction' || method === 'eth_sendTransaction') return true;
  return (method.startsWith('hardhat_') || method.startsWith('evm_')) && !TIME_ONLY.has(method) && !READS.has(method);
}

interface LatestBlock {
  readonly number: number;
  readonly timestamp: number;
}

async function latestBlock(chain: EdrChain): Promise<LatestBlock> {
  const answer = await chain.request('eth_getBlockByNumber', ['latest', false]);
  if (!('result' in answer)) throw new Error(`local EVM: cannot read the latest block: ${answer.error.message}`);
  const block = answer.result as { number: string; timestamp: string };
  return { number: Number(BigInt(block.number)), timestamp: Number(BigInt(block.timestamp)) };
}

/** A chain whose writes are recorded once `start()` is called. */
export interface JournaledChain extends EdrChain {
  /** Records from now on (after the deterministic set-up, which a restart repeats by itself). */
  start(): void;
  /** The entries recorded so far, oldest first (previous runs' replayed entries included). */
  entries(): readonly EvmJournalEntry[];
}

/**
 * Wraps `chain` so every write is recorded. Writes run one at a time (reads do not wait): the
 * journal's order must be the order the chain mined them in.
 */
export function journalChain(chain: EdrChain, replayed: readonly EvmJournalEntry[] = []): JournaledChain {
  const entries: EvmJournalEntry[] = [...replayed];
  let recording = false;
  let queue: Promise<unknown> = Promise.resolve();

  async function write(method: string, params: readonly unknown[]): Promise<RpcAnswer> {
    const answer = await chain.request(method, params);
    if ('error' in answer) return answer;
    const block = await latestBlock(chain);
    entries.push({ method, params, block: block.number, timestamp: block.timestamp });
    return answer;
  }

  return {
    request(method, params) {
      if (!recording || !writesChain(method)) return chain.request(method, params);
      const run = queue.then(() => write(method, params));
      queue = run.catch(() => undefined);
      return run;
    },
    start() {
      recording = true;
    },
    entries: () => entries,
  };
}

/** Pins the next block to `timestamp`, or to the latest block's own time when that is later. */
async function pinNextBlock(chain: EdrChain, timestamp: number): Promise<void> {
  const latest = await latestBlock(chain);
  const at = Math.max(timestamp, latest.timestamp);
  const answer = await chain.request('evm_setNextBlockTimestamp', [at]);
  if ('error' in answer) throw new Error(`local EVM: cannot set the next block's time: ${answer.error.message}`);
}

/** Before the set-up of a restored chain: its blocks at the kept genesis time, as the first run's were. */
export async function pinToGenesis(chain: EdrChain, genesisTime: number): Promise<void> {
  await pinNextBlock(chain, genesisTime);
}

/**
 * Replays `entries` into a chain that has just been set up again. A call that fails now where it
 * succeeded before means the rebuilt chain is not the one the journal was recorded on: the
 * replay stops there rather than serve a chain that differs from it without saying so.
 */
export async function replayJournal(chain: EdrChain, entries: readonly EvmJournalEntry[], nowSeconds: number): Promise<void> {
  for (const [i, entry] of entries.entries()) {
    const before = await latestBlock(chain);
    if (entry.block > before.number) await pinNextBlock(chain, entry.timestamp);
    const answer = await chain.request(entry.method, entry.params);
    if ('error' in answer) throw new Error(`local EVM: replaying entry ${i} (${entry.method}) failed: ${answer.error.message}`);
  }
  // Back to the wall clock: the next transaction's authorization window is checked against now.
  await pinNextBlock(chain, nowSeconds);
  const mined = await chain.request('evm_mine', []);
  if ('error' in mined) throw new Error(`local EVM: cannot mine the catch-up block: ${mined.error.message}`);
}

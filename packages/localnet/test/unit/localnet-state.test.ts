/**
 * The localnet's saved state: the EVM journal replayed on a rebuilt chain gives the same blocks at
 * the same times and the same balances, then the clock is back at now; the state file reads back
 * what was written (big integers, bytes) and refuses another version or seed, naming --fresh.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEdrChain, type EdrChain } from '../../src/evm/edr-chain.ts';
import { journalChain, pinToGenesis, replayJournal, writesChain } from '../../src/state/evm-journal.ts';
import { openStateDir } from '../../src/state/localnet-persistence.ts';
import { decodeState, encodeState, STATE_FILE, STATE_VERSION, type LocalnetState } from '../../src/state/state-file.ts';

const KEY = `0x${'42'.repeat(32)}`;
const dir = mkdtempSync(join(tmpdir(), 'localnet-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function result(chain: EdrChain, method: string, params: unknown[]): Promise<any> {
  const answer = await chain.request(method, params);
  if ('error' in answer) throw new Error(answer.error.message);
  return answer.result;
}

/** The deterministic set-up both runs do: the owned account funded. */
async function setUp(chain: EdrChain): Promise<string> {
  const [account] = (await result(chain, 'eth_accounts', [])) as string[];
  await result(chain, 'hardhat_setBalance', [account, `0x${(10n ** 20n).toString(16)}`]);
  return account!;
}

const block = async (chain: EdrChain, n: number) =>
  (await result(chain, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as { timestamp: string; hash: string };

describe('the EVM journal', () => {
  it('replays on a chain built from the same genesis: blocks at their recorded times, the same balances, then the clock at now', async () => {
    const genesisTime = Math.floor(Date.now() / 1000) - 86_400;
    const first = await createEdrChain({ chainId: 8453n, ownedKeys: [KEY], balances: [], genesisTime });
    await pinToGenesis(first, genesisTime);
    const from = await setUp(first);
    const journaled = journalChain(first);
    journaled.start();
    const to = '0x1111111111111111111111111111111111111111';
    await result(journaled, 'eth_sendTransaction', [{ from, to, value: '0x10' }]);
    // Time moves (not journaled itself): the next block's recorded time carries it.
    await result(journaled, 'evm_increaseTime', [3_600]);
    await result(journaled, 'eth_sendTransaction', [{ from, to, value: '0x20' }]);
    await result(journaled, 'eth_getBalance', [to, 'latest']);
    expect(journaled.entries().map((e) => e.method)).toEqual(['eth_sendTransaction', 'eth_sendTransaction']);

    const second = await createEdrChain({ chainId: 8453n, ownedKeys: [KEY], balances: [], genesisTime });
    await pinToGenesis(second, genesisTime);
    await setUp(second);
    const now = Math.floor(Date.now() / 1000);
    await replayJournal(second, journaled.entries(), now);
    for (const entry of journaled.entries()) expect(Number((await block(second, entry.block)).timestamp)).toBe(entry.timestamp);
    expect(Number((await block(second, 2)).timestamp) - Number((await block(second, 1)).timestamp)).toBeGreaterThanOrEqual(3_600);
    expect(await result(second, 'eth_getBalance', [to, 'latest'])).toBe(await result(first, 'eth_getBalance', [to, 'latest']));
    expect(await result(second, 'eth_getBalance', [from, 'latest'])).toBe(await result(first, 'eth_getBalance', [from, 'latest']));
    const latest = await result(second, 'eth_getBlockByNumber', ['latest', false]);
    expect(Number(latest.timestamp)).toBeGreaterThanOrEqual(now);
  });

  it('records what writes the chain, not reads or time steering', () => {
    for (const m of ['eth_sendRawTransaction', 'eth_sendTransaction', 'hardhat_setBalance', 'evm_mine', 'evm_revert']) expect(writesChain(m)).toBe(true);
    for (const m of ['eth_call', 'eth_getBalance', 'evm_increaseTime', 'evm_setNextBlockTimestamp', 'hardhat_metadata']) expect(writesChain(m)).toBe(false);
  });
});

describe('the state file', () => {
  const state: LocalnetState = {
    version: STATE_VERSION,
    seed: 'localnet-1',
    savedAt: '2026-11-24T12:00:00.000Z',
    solana: {
      startSlot: 123_456_789_012n,
      startBlockHeight: 99n,
      accounts: [
        [
          '11111111111111111111111111111112',
          { lamports: 5n, data: Uint8Array.from([0, 1, 255]), owner: '11111111111111111111111111111111', executable: false },
        ],
        ['11111111111111111111111111111113', null],
      ],
      transactions: [],
    },
    evm: { genesisTime: 1_700_000_000, journal: [{ method: 'eth_sendRawTransaction', params: ['0x02'], block: 3, timestamp: 1_700_000_010 }] },
  };

  it('reads back what it wrote: big integers and bytes included', () => {
    expect(decodeState(encodeState(state), 'x')).toEqual(state);
  });

  it('refuses text that does not parse, another version, and another seed, naming --fresh', async () => {
    expect(() => decodeState('{', 'f')).toThrow(/does not parse; start with --fresh/);
    expect(() => decodeState(encodeState({ ...state, version: STATE_VERSION + 1 }), 'f')).toThrow(/not a version 1 state; start with --fresh/);
    const other = join(dir, 'other-seed');
    await openStateDir({ dir: other }, 'localnet-1').then((o) => o.release());
    writeFileSync(join(other, STATE_FILE), encodeState({ ...state, seed: 'elsewhere' }));
    await expect(openStateDir({ dir: other }, 'localnet-1')).rejects.toThrow(/made with seed elsewhere, not localnet-1; start with --fresh/);
    // --fresh reads nothing, so the old state cannot stand in the way.
    const fresh = await openStateDir({ dir: other, fresh: true }, 'localnet-1');
    expect(fresh.saved).toBeNull();
    fresh.release();
  });
});

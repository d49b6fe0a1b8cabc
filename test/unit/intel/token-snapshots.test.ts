/**
 * The snapshot source: mints asked for in the same tick share one read, cached mints cost no read,
 * concurrent identical requests share one, faults are not cached, and the -32010 answer of a
 * huge mint becomes the explicit `snapshot_unavailable` holder error.
 */
import { encodeMintAccount } from '@solana-x402-intel/localnet';
import { describe, expect, it } from 'vitest';
import type { MintRound, RawAccount, TokenRpcMethods } from '../../../src/chain/solana/rpc-token-methods.ts';
import { SPL_TOKEN_PROGRAM_ID } from '../../../src/intel/token/mint-analysis.ts';
import { createTokenSnapshots } from '../../../src/intel/token/token-snapshots.ts';

const MINTS = ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN'];
const HUGE = MINTS[2]!;

function fakeRpc(): TokenRpcMethods & { reads: string[][]; fail: boolean } {
  const state = { reads: [] as string[][], fail: false };
  const mintAccount = (address: string): RawAccount => ({
    address,
    owner: SPL_TOKEN_PROGRAM_ID,
    lamports: 1n,
    executable: false,
    data: encodeMintAccount({ mintAuthority: null, supply: 100n, decimals: 0, isInitialized: true, freezeAuthority: null }),
  });
  return Object.assign(state, {
    async readMints(mints: readonly string[]): Promise<MintRound> {
      state.reads.push([...mints]);
      if (state.fail) throw new Error('rpc down');
      return {
        slot: 42,
        mints: mints.map((m) => (m.startsWith('1') ? null : mintAccount(m))),
        epoch: { ok: true, slot: 42, value: 7 },
        largest: mints.map((m) =>
          m === HUGE ? { ok: false as const, code: -32010, message: 'excluded from account secondary indexes' } : { ok: true as const, slot: 42, value: [] },
        ),
      };
    },
    async readAccounts(_addresses: readonly string[], _signal?: AbortSignal, historyOf: readonly string[] = []) {
      return {
        slot: 42,
        accounts: [],
        history: historyOf.map(() => ({ ok: true as const, slot: null, value: { count: 0, limit: 1000, newestBlockTime: null, oldestBlockTime: null } })),
      };
    },
  });
}

describe('token snapshots', () => {
  it('reads the mints asked for in one tick together, and serves repeats from the cache', async () => {
    const rpc = fakeRpc();
    const snaps = createTokenSnapshots(rpc, 60_000);
    const [a, b] = await Promise.all([snaps.getMany(MINTS), snaps.getMany([MINTS[0]!])]);
    expect(rpc.reads).toEqual([MINTS]);
    expect(a.map((s) => s.kind)).toEqual(['mint', 'mint', 'mint']);
    expect(b[0]).toBe(a[0]);
    await snaps.getMany(MINTS);
    expect(rpc.reads).toHaveLength(1);
    expect(a[0]).toMatchObject({ slot: 42, epoch: 7, holders: { ok: true } });
    expect(a[2]).toMatchObject({ holders: { ok: false, error: 'snapshot_unavailable', rpcCode: -32010 } });
  });

  it('answers not_found for a missing account and does not cache faults', async () => {
    const rpc = fakeRpc();
    const snaps = createTokenSnapshots(rpc, 60_000);
    rpc.fail = true;
    await expect(snaps.getMany([MINTS[0]!])).rejects.toThrow('rpc down');
    rpc.fail = false;
    const [s] = await snaps.getMany([MINTS[0]!]);
    expect(s!.kind).toBe('mint');
    expect(rpc.reads).toHaveLength(2);
    const [missing] = await snaps.getMany(['11111111111111111111111111111112']);
    expect(missing).toEqual({ kind: 'not_found', mint: '11111111111111111111111111111112', slot: 42 });
  });
});

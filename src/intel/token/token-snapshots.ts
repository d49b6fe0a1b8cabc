/**
 * Chain snapshots of mints for the token analysis, cached per mint (single-flight, TTL) and
 * stamped with the RPC context slot. Concurrent requests for different mints made in the same
 * tick are read together, so a batch of N mints costs the same round trips as one: (1) mint
 * accounts + epoch + largest accounts, (2) token accounts (owners) + hook programs, (3) hook
 * ProgramData, only when a transfer hook is upgradeable-loader owned.
 */
import { createSingleFlightCache, raceAbort } from '../../caches/single-flight-cache.ts';
import {
  RPC_KEY_EXCLUDED_FROM_SECONDARY_INDEX,
  type MintHistory,
  type RawAccount,
  type RpcElement,
  type TokenRpcMethods,
} from '../../chain/solana/rpc-token-methods.ts';
import { findExtension, parseTokenAccount } from '../../chain/tokens/token-extensions.ts';
import type { HolderAccountInput } from './holder-buckets.ts';
import { hookProgramStatus, parseMint, programDataAddressOf, type HookProgramStatus, type ParsedMint } from './mint-analysis.ts';
import { TOKEN_CACHE_TTL_MS } from './token-methodology.ts';

/** The largest accounts of a mint, or why they could not be read. */
export type HoldersRead =
  | { readonly ok: true; readonly slot: number | null; readonly accounts: readonly HolderAccountInput[] }
  | { readonly ok: false; readonly error: 'snapshot_unavailable' | 'holders_unavailable'; readonly rpcCode: number; readonly message: string };

export type TokenSnapshot =
  | {
      readonly kind: 'mint';
      readonly mint: string;
      readonly slot: number;
      readonly parsed: ParsedMint;
      readonly epoch: number | null;
      readonly holders: HoldersRead;
      readonly hook: HookProgramStatus | null;
      /** One page of the mint's signatures (age context), or the RPC error. */
      readonly history: RpcElement<MintHistory>;
    }
  | { readonly kind: 'not_found'; readonly mint: string; readonly slot: number }
  | { readonly kind: 'not_a_mint'; readonly mint: string; readonly slot: number; readonly owner: string; readonly detail: string };

export interface TokenSnapshots {
  /** Snapshots in the order of `mints` (each from the cache or one shared read). */
  getMany(mints: readonly string[], signal?: AbortSignal): Promise<TokenSnapshot[]>;
}

/** Most mints kept. */
const SNAPSHOT_CACHE_MAX = 2_000;

function hookProgramId(parsed: ParsedMint): string | null {
  return findExtension(parsed.typed, 'transferHook')?.state.programId ?? null;
}

function holderInputs(rows: readonly { address: string; amount: bigint }[], accounts: ReadonlyMap<string, RawAccount | null>): HolderAccountInput[] {
  return rows.map((r) => {
    const acct = accounts.get(r.address) ?? null;
    const parsed = acct ? parseTokenAccount(acct.data) : null;
    return { address: r.address, amount: r.amount, owner: parsed?.ok ? parsed.state.owner : null, state: parsed?.ok ? parsed.state.state : null };
  });
}

/** Reads many mints in the fixed number of round trips described above. */
export async function readSnapshots(rpc: TokenRpcMethods, mints: readonly string[], signal?: AbortSignal): Promise<TokenSnapshot[]> {
  const round1 = await rpc.readMints(mints, signal);
  const epoch = round1.epoch.ok ? round1.epoch.value : null;
  const parsed = mints.map((_mint, i) => {
    const acct = round1.mints[i] ?? null;
    return acct === null ? null : parseMint(acct.owner, acct.data);
  });
  const second = new Set<string>();
  parsed.forEach((p, i) => {
    const largest = round1.largest[i];
    if (!p?.ok) return;
    if (largest?.ok) for (const row of largest.value) second.add(row.address);
    const hook = hookProgramId(p.mint);
    if (hook) second.add(hook);
  });
  const validMints = mints.filter((_, i) => parsed[i]?.ok === true);
  const round2 = await rpc.readAccounts([...second], signal, validMints);
  const histories = new Map(validMints.map((m, i) => [m, round2.history[i]!]));
  const accounts = new Map([...second].map((a, i) => [a, round2.accounts[i] ?? null]));
  const programDatas = new Map<string, string>();
  for (const p of parsed) {
    const hook = p?.ok ? hookProgramId(p.mint) : null;
    const program = hook ? accounts.get(hook) : null;
    const pd = program ? programDataAddressOf(program.owner, program.data) : null;
    if (hook && pd) programDatas.set(hook, pd);
  }
  const round3 = await rpc.readAccounts([...new Set(programDatas.values())], signal);
  const pdAccounts = new Map([...new Set(programDatas.values())].map((a, i) => [a, round3.accounts[i] ?? null]));
  return mints.map((mint, i): TokenSnapshot => {
    const p = parsed[i];
    if (p === null || p === undefined) return { kind: 'not_found', mint, slot: round1.slot };
    if (!p.ok) return { kind: 'not_a_mint', mint, slot: round1.slot, owner: p.owner, detail: p.detail };
    const largest = round1.largest[i]!;
    const holders: HoldersRead = largest.ok
      ? { ok: true, slot: largest.slot, accounts: holderInputs(largest.value, accounts) }
      : {
          ok: false,
          error: largest.code === RPC_KEY_EXCLUDED_FROM_SECONDARY_INDEX ? 'snapshot_unavailable' : 'holders_unavailable',
          rpcCode: largest.code,
          // Ours, never the RPC's own text (a provider may write anything there, its URL or key included).
          message:
            largest.code === RPC_KEY_EXCLUDED_FROM_SECONDARY_INDEX
              ? 'the RPC excludes this mint from its secondary indexes'
              : `the RPC refused getTokenLargestAccounts (JSON-RPC ${largest.code})`,
        };
    const hookId = hookProgramId(p.mint);
    const pdAddress = hookId ? (programDatas.get(hookId) ?? null) : null;
    const hook = hookId
      ? hookProgramStatus(hookId, accounts.get(hookId) ?? null, pdAddress ? { address: pdAddress, account: pdAccounts.get(pdAddress) ?? null } : null)
      : null;
    const history = histories.get(mint) ?? { ok: false, code: 0, message: 'not read' };
    return { kind: 'mint', mint, slot: round1.slot, parsed: p.mint, epoch, holders, hook, history };
  });
}

/**
 * Collects the keys asked for in one tick and reads them together; each caller gets its own
 * snapshot. The read runs detached from any one caller (the transport's time limit bounds it).
 */
function createTickBatcher(read: (mints: readonly string[]) => Promise<TokenSnapshot[]>): (mint: string) => Promise<TokenSnapshot> {
  let pending: Map<string, { resolve: (s: TokenSnapshot) => void; reject: (e: unknown) => void }[]> | null = null;
  const flush = (batch: NonNullable<typeof pending>) => {
    const mints = [...batch.keys()];
    read(mints).then(
      (snaps) => {
        for (const [i, s] of snaps.entries()) for (const w of batch.get(mints[i]!)!) w.resolve(s);
      },
      (err: unknown) => {
        for (const ws of batch.values()) for (const w of ws) w.reject(err);
      },
    );
  };
  return (mint) =>
    new Promise((resolve, reject) => {
      if (pending === null) {
        const batch = new Map<string, { resolve: (s: TokenSnapshot) => void; reject: (e: unknown) => void }[]>();
        pending = batch;
        queueMicrotask(() => {
          pending = null;
          flush(batch);
        });
      }
      const waiters = pending.get(mint) ?? [];
      waiters.push({ resolve, reject });
      pending.set(mint, waiters);
    });
}

/** The cached, tick-batched snapshot source. Faults are not cached; not_found answers are (TTL). */
export function createTokenSnapshots(rpc: TokenRpcMethods, ttlMs: number = TOKEN_CACHE_TTL_MS.snapshot): TokenSnapshots {
  const cache = createSingleFlightCache<TokenSnapshot>({ max: SNAPSHOT_CACHE_MAX, ttlMs });
  const load = createTickBatcher((mints) => readSnapshots(rpc, mints));
  return {
    async getMany(mints, signal) {
      // One abort listener for the whole set, not one per mint (a batch would exceed Node's 10).
      const got = Promise.all(mints.map((m) => cache.get(m, () => load(m))));
      return (await raceAbort(got, signal)).map((g) => g.value);
    },
  };
}

/**
 * The Solana side of the localnet's saved state. The world is deterministic in its seed, so a
 * restart builds it again and what must be kept is what changed since: every account written
 * after the world was built (funded payers, the service's accounts, pool reserves moved by the
 * traffic), the slot and block height to go on from (a settlement's blockhash expires by height,
 * so a restart must not begin again at zero), and the recent transactions that did not come from
 * the block producer (payments and faucet grants), so their statuses and bodies still answer.
 */
import type { AccountData, LocalChain } from '../chain/local-chain.ts';
import type { ExecutedTransaction } from '../chain/types.ts';
import type { LaunchRecord } from '../traffic/pool-launches.ts';

/** Non-traffic transactions kept across a restart, newest. */
export const KEPT_TRANSACTIONS = 2_000;

/** What a restart needs of the Solana chain. */
export interface SolanaState {
  /** The restarted chain's first slot: past every slot the saved one used, its open slot included. */
  readonly startSlot: bigint;
  readonly startBlockHeight: bigint;
  /** Every account written since the world was built: its content, or null once gone. */
  readonly accounts: ReadonlyArray<readonly [string, AccountData | null]>;
  readonly transactions: readonly ExecutedTransaction[];
  /** The pools launched while it ran, so the market stand-ins list them again (absent in older saves). */
  readonly launches?: readonly LaunchRecord[];
}

/** Follows a running chain's changes from the moment it is called (after the world is built). */
export function trackSolanaState(chain: LocalChain, trafficPayers: ReadonlySet<string>, restored: SolanaState | null) {
  const written = new Set<string>(restored?.accounts.map(([address]) => address) ?? []);
  const kept: ExecutedTransaction[] = [...(restored?.transactions ?? [])];
  let changed = false;
  chain.watchAccountWrites((address) => {
    written.add(address);
    changed = true;
  });
  chain.on('transaction', (tx: ExecutedTransaction) => {
    if (trafficPayers.has(tx.accountKeys[0] ?? '')) return;
    kept.push(tx);
    if (kept.length > KEPT_TRANSACTIONS * 2) kept.splice(0, kept.length - KEPT_TRANSACTIONS);
  });
  return {
    /** Whether anything was written since the last `capture()`. */
    get changed() {
      return changed;
    },
    capture(): SolanaState {
      changed = false;
      return {
        startSlot: chain.openSlot() + 1n,
        startBlockHeight: chain.blockHeight('processed') + 2n,
        accounts: [...written].map((address) => [address, chain.getAccount(address)] as const),
        transactions: kept.slice(-KEPT_TRANSACTIONS),
      };
    },
  };
}

/** The tracker `trackSolanaState` returns. */
export type SolanaStateTracker = ReturnType<typeof trackSolanaState>;

const SYSTEM_PROGRAM = '11111111111111111111111111111111';

/** Puts the saved transactions back: before the world is built, so each address's history stays in slot order. */
export function restoreSolanaTransactions(chain: LocalChain, state: SolanaState): void {
  for (const tx of state.transactions) chain.restoreTransaction(tx);
}

/** Writes the saved accounts over the rebuilt world; an account that was closed is emptied again. */
export function restoreSolanaAccounts(chain: LocalChain, state: SolanaState): void {
  for (const [address, account] of state.accounts) {
    chain.setAccount(address, account ?? { lamports: 0n, data: new Uint8Array(), owner: SYSTEM_PROGRAM });
  }
}

/**
 * The chain core's own secondary indexes, since LiteSVM lists accounts only by owner and keeps no
 * per-address history. All of them are bounded so the localnet can run for hours:
 * - transactions by signature: the newest `maxTransactions` (FIFO eviction);
 * - signatures by address: the newest `maxSignaturesPerAddress` per address, for at most
 *   `maxTrackedAddresses` addresses (least recently active dropped first); entries outlive the
 *   evicted transaction bodies, like a node without long-term storage;
 * - prioritization fees: the last `PRIORITIZATION_FEE_SLOTS` closed slots;
 * - token accounts by mint and by owner: one entry per live token account (world size).
 */
import type { ExecutedTransaction } from './types.ts';

/** Slots of prioritization-fee history kept, as Agave's cache (MAX_NUM_RECENT_BLOCKS). */
export const PRIORITIZATION_FEE_SLOTS = 150;

/** One row of getSignaturesForAddress. */
export interface SignatureEntry {
  readonly signature: string;
  readonly slot: bigint;
  readonly index: number;
  readonly err: unknown;
  readonly blockTime: number;
}

/** Owner, mint and program of an indexed token account. */
export interface TokenAccountKey {
  readonly mint: string;
  readonly owner: string;
  readonly programId: string;
}

/** Options of a signatures-by-address query. */
export interface SignatureQuery {
  readonly limit: number;
  readonly before?: string;
  readonly until?: string;
  /** Entries above this slot are not yet visible at the requested commitment. */
  readonly maxSlot: bigint;
}

interface SlotFees {
  minFee: bigint | null;
  readonly byAccount: Map<string, bigint>;
}

/** Index limits. */
export interface ChainIndexesConfig {
  readonly maxTransactions: number;
  readonly maxSignaturesPerAddress: number;
  /** Addresses with a signature history kept (default 100000). */
  readonly maxTrackedAddresses?: number;
}

/** Creates empty indexes. */
export function createChainIndexes(config: ChainIndexesConfig) {
  const transactions = new Map<string, ExecutedTransaction>();
  const signaturesByAddress = new Map<string, SignatureEntry[]>();
  const tokenAccounts = new Map<string, TokenAccountKey>();
  const byMint = new Map<string, Set<string>>();
  const byOwner = new Map<string, Set<string>>();
  const fees = new Map<bigint, SlotFees>();
  const maxTracked = config.maxTrackedAddresses ?? 100_000;

  function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
    let set = map.get(key);
    if (!set) {
      set = new Set();
      map.set(key, set);
    }
    set.add(value);
  }
  function removeFrom(map: Map<string, Set<string>>, key: string, value: string): void {
    const set = map.get(key);
    if (!set) return;
    set.delete(value);
    if (set.size === 0) map.delete(key);
  }

  function recordSignature(address: string, entry: SignatureEntry): void {
    let list = signaturesByAddress.get(address);
    // Re-inserting keeps the Map in least-recently-active order for eviction.
    if (list) signaturesByAddress.delete(address);
    else list = [];
    signaturesByAddress.set(address, list);
    if (signaturesByAddress.size > maxTracked) {
      const oldest = signaturesByAddress.keys().next().value;
      if (oldest !== undefined) signaturesByAddress.delete(oldest);
    }
    list.push(entry);
    // Trim in chunks so the amortized cost per push stays O(1).
    if (list.length >= config.maxSignaturesPerAddress * 2) list.splice(0, list.length - config.maxSignaturesPerAddress);
  }

  return {
    /** Records a landed transaction under its signature and every account key it references. */
    recordTransaction(tx: ExecutedTransaction, writableKeys: readonly string[], unitPrice: bigint): void {
      transactions.set(tx.signature, tx);
      if (transactions.size > config.maxTransactions) {
        const oldest = transactions.keys().next().value;
        if (oldest !== undefined) transactions.delete(oldest);
      }
      const entry: SignatureEntry = { signature: tx.signature, slot: tx.slot, index: tx.index, err: tx.err, blockTime: tx.blockTime };
      for (const key of new Set(tx.accountKeys)) recordSignature(key, entry);
      if (!tx.isVote) recordFee(tx.slot, unitPrice, writableKeys);
    },

    /** A previous run's transaction, back in the history without a fee entry (its slot is long closed). */
    restoreTransaction(tx: ExecutedTransaction): void {
      transactions.set(tx.signature, tx);
      const entry: SignatureEntry = { signature: tx.signature, slot: tx.slot, index: tx.index, err: tx.err, blockTime: tx.blockTime };
      for (const key of new Set(tx.accountKeys)) recordSignature(key, entry);
    },

    /** A recorded transaction, if still retained. */
    transaction(signature: string): ExecutedTransaction | undefined {
      return transactions.get(signature);
    },

    /** Signatures touching `address`, newest first, Agave's before/until/limit semantics. */
    signaturesForAddress(address: string, query: SignatureQuery): SignatureEntry[] {
      const list = signaturesByAddress.get(address) ?? [];
      const out: SignatureEntry[] = [];
      let started = query.before === undefined;
      const floor = Math.max(0, list.length - config.maxSignaturesPerAddress);
      for (let i = list.length - 1; i >= floor && out.length < query.limit; i--) {
        const entry = list[i]!;
        if (!started) {
          started = entry.signature === query.before;
          continue;
        }
        if (entry.signature === query.until) break;
        if (entry.slot <= query.maxSlot) out.push(entry);
      }
      return out;
    },

    /** Sets or clears (info null) the token-account index entry of `address`. */
    setTokenAccount(address: string, info: TokenAccountKey | null): void {
      const prev = tokenAccounts.get(address);
      if (prev && info && prev.mint === info.mint && prev.owner === info.owner && prev.programId === info.programId) return;
      if (prev) {
        removeFrom(byMint, prev.mint, address);
        removeFrom(byOwner, prev.owner, address);
        tokenAccounts.delete(address);
      }
      if (!info) return;
      tokenAccounts.set(address, info);
      addTo(byMint, info.mint, address);
      addTo(byOwner, info.owner, address);
    },

    /** Token account addresses of a mint. */
    tokenAccountsByMint(mint: string): readonly string[] {
      return [...(byMint.get(mint) ?? [])];
    },

    /** Token account addresses whose token owner is `owner`. */
    tokenAccountsByOwner(owner: string): readonly string[] {
      return [...(byOwner.get(owner) ?? [])];
    },

    /** Number of token accounts of a mint, without copying. */
    tokenAccountCount(mint: string): number {
      return byMint.get(mint)?.size ?? 0;
    },

    /** Opens an (empty) fee entry for a slot so quiet slots report 0 like Agave. */
    openSlot(slot: bigint): void {
      if (!fees.has(slot)) fees.set(slot, { minFee: null, byAccount: new Map() });
      for (const s of fees.keys()) {
        if (fees.size <= PRIORITIZATION_FEE_SLOTS + 1) break;
        fees.delete(s);
      }
    },

    /**
     * Agave's getRecentPrioritizationFees: per slot, the minimum compute unit price of its
     * transactions, raised to the highest per-account minimum among `accounts`.
     */
    prioritizationFees(accounts: readonly string[], maxSlot: bigint): { slot: bigint; prioritizationFee: bigint }[] {
      const out: { slot: bigint; prioritizationFee: bigint }[] = [];
      for (const [slot, f] of fees) {
        if (slot > maxSlot) continue;
        let fee = f.minFee ?? 0n;
        for (const a of accounts) {
          const accountFee = f.byAccount.get(a);
          if (accountFee !== undefined && accountFee > fee) fee = accountFee;
        }
        out.push({ slot, prioritizationFee: fee });
      }
      return out.slice(-PRIORITIZATION_FEE_SLOTS);
    },
  };

  function recordFee(slot: bigint, price: bigint, writableKeys: readonly string[]): void {
    let f = fees.get(slot);
    if (!f) {
      f = { minFee: null, byAccount: new Map() };
      fees.set(slot, f);
    }
    if (f.minFee === null || price < f.minFee) f.minFee = price;
    for (const key of writableKeys) {
      const prev = f.byAccount.get(key);
      if (prev === undefined || price < prev) f.byAccount.set(key, price);
    }
  }
}

/** The index object created by `createChainIndexes`. */
export type ChainIndexes = ReturnType<typeof createChainIndexes>;

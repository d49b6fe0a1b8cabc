/** The per-source budget's outside: what a settlement reserves, and how verification's reads reach it (source-budget.ts). */

export type SettlementOutcome = 'spent' | 'unspent' | 'unknown';

/** A reservation: end it once with what became of the settlement. */
export interface SourceHold {
  end(outcome: SettlementOutcome): void;
}

export interface SourceBudgetConfig {
  readonly waitMs?: number;
  readonly unknownHoldMs?: number;
  readonly reuseMs?: number;
  /** Monotonic milliseconds (tests inject one); default performance.now. */
  readonly now?: () => number;
}

/** A chain read on its way, started by `startRead` just before it is asked for. */
export interface SourceRead {
  /**
   * Records what the read found: `balance` of `source` before the payment `key` moves anything, as
   * of when the read started; with `mint`, it also found `source` a live token account of that
   * mint, and the same source's next payments may reuse it (`reuseRead`).
   */
  note(key: string, source: string, balance: bigint, mint?: string): void;
}

export interface SourceBudget {
  /** Whether verification noted a read for the payment `key` (and it is still kept). */
  hasRead(key: string): boolean;
  /** Call just before asking the chain for a source's balance; note the answer through what it returns. */
  startRead(): SourceRead;
  /**
   * Notes for the payment `key` the newest checked read of `source` (of `mint`), when it is younger
   * than READ_REUSE_MS and what it leaves, less what is in flight and spent since, covers `amount`;
   * false when verification must read the chain.
   */
  reuseRead(key: string, source: string, mint: string, amount: bigint): boolean;
  /** Forgets the reusable read of `source` (a settlement from it was refused or failed). */
  forgetRead(source: string): void;
  /**
   * Reserves `amount` from `source` for the payment `key`; null when its verification read is
   * unknown (or stale), or it does not fit within the wait. The caller then refuses the payment.
   * `readNow`: when that read is not kept (it aged out, or another instance verified the payment),
   * the balance read now instead (null: unreadable, then the payment is refused).
   */
  reserve(key: string, source: string, amount: bigint, signal?: AbortSignal, readNow?: () => Promise<bigint | null>): Promise<SourceHold | null>;
  /** Sources with settlements in flight or recent finishes (bounded by activity, for tests). */
  readonly trackedSources: number;
}

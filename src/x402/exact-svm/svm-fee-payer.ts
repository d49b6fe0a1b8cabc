/**
 * What /health shows of the Solana fee payer: its SOL balance, read every FEE_PAYER_READ_MS (one
 * cheap RPC read, never per request), and what settlements cost it, counted from the transactions
 * we signed and the node accepted (base fee per signature plus priority fee). A sent transaction
 * that never lands costs nothing, so the count is an upper bound; one that fails on chain is billed
 * and counted.
 */
import type { RpcClient } from '../../chain/solana/rpc-client.ts';
import type { WireTransaction } from '../../chain/solana/svm-wire.ts';
import { SVM_REASON } from './svm-reasons.ts';
import { settlementFee } from './svm-rules.ts';

/**
 * Default SOL price (USD) at which the fee payer's lamports count as a loss (--sol-price-usd):
 * above any price SOL has traded at, so a loss counted in dollars errs high, never low.
 */
export const DEFAULT_SOL_PRICE_USD = 500;

/** `lamports` in token units (6 decimals) at `solPriceUsd`, rounded up: a loss is never counted below what was lost. */
export function lamportsToUnits(lamports: bigint, solPriceUsd: number): number {
  // lamports / 1e9 SOL x price USD x 1e6 units per USD
  return Math.ceil((Number(lamports) * solPriceUsd) / 1_000);
}

/**
 * What a settlement of `tx` that failed cost the fee payer, in token units: with `reason`, what it
 * actually paid (its fee when it failed on chain; nothing when it never landed: expired, refused,
 * lost); without, the most it can cost. Early answers count it as a loss (docs/payments.md#early-answers).
 */
export function failedSettlementFeeUnits(tx: WireTransaction, reason: string | undefined, solPriceUsd: number): number {
  if (reason !== undefined && reason !== SVM_REASON.transactionFailed) return 0;
  const fee = settlementFee(tx);
  return lamportsToUnits(fee.baseLamports + fee.priorityLamports, solPriceUsd);
}

/** How often the fee payer's balance is read. */
export const FEE_PAYER_READ_MS = 30_000;

export interface SettlementFee {
  readonly baseLamports: bigint;
  readonly priorityLamports: bigint;
}

export interface FeePayerStatus {
  readonly address: string;
  /** Lamports at the last successful read; null before the first. */
  readonly lamports: number | null;
  readonly readAt: string | null;
  /** Settlements we signed that the node accepted, and their fees. */
  readonly settlementsSent: number;
  readonly spentLamports: { readonly base: number; readonly priority: number; readonly total: number };
  /** The refusal limits that bound each settlement's fee (docs/security.md). */
  readonly limits: { readonly maxComputeUnits: number; readonly maxPriorityFeeLamports: number };
}

export interface FeePayerWatchConfig {
  readonly address: string;
  readonly rpc: Pick<RpcClient, 'getAccountInfo'>;
  readonly limits: FeePayerStatus['limits'];
  readonly readEveryMs?: number;
  /** Wall clock of `readAt`; tests inject one. */
  readonly now?: () => Date;
}

export interface FeePayerWatch {
  /** Counts one settlement the node accepted. */
  record(fee: SettlementFee): void;
  status(): FeePayerStatus;
  close(): void;
}

/** Starts reading the balance at once, then every `readEveryMs` (the timer never keeps the process up). */
export function createFeePayerWatch(config: FeePayerWatchConfig): FeePayerWatch {
  const now = config.now ?? (() => new Date());
  const stop = new AbortController();
  let lamports: number | null = null;
  let readAt: Date | null = null;
  let sent = 0;
  let base = 0n;
  let priority = 0n;

  async function read(): Promise<void> {
    try {
      const account = await config.rpc.getAccountInfo(config.address, stop.signal);
      lamports = Number(account?.lamports ?? 0n);
      readAt = now();
    } catch {
      // The last good read stays, with its time: /health shows how old it is.
    }
  }
  void read();
  const timer = setInterval(() => void read(), config.readEveryMs ?? FEE_PAYER_READ_MS);
  timer.unref();

  return {
    record(fee) {
      sent++;
      base += fee.baseLamports;
      priority += fee.priorityLamports;
    },
    status() {
      return {
        address: config.address,
        lamports,
        readAt: readAt?.toISOString() ?? null,
        settlementsSent: sent,
        spentLamports: { base: Number(base), priority: Number(priority), total: Number(base + priority) },
        limits: config.limits,
      };
    },
    close() {
      clearInterval(timer);
      stop.abort();
    },
  };
}

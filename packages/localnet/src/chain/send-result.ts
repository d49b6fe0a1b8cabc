/**
 * Result types of the chain core's write paths: `sendTransaction` (landed, possibly with an
 * error, or rejected without a trace), `simulate`, and signature statuses.
 */
import type { Commitment, ExecutedTransaction } from './types.ts';
import type { DecodedTransaction } from './wire-transaction.ts';
import type { SimulationOutcome } from './transaction-runner.ts';

/** Result of `sendTransaction`: landed (possibly with `tx.err`), or rejected without a trace. */
export type SendResult =
  | { readonly ok: true; readonly signature: string; readonly tx: ExecutedTransaction }
  | {
      readonly ok: false;
      readonly signature: string | null;
      /** 'decode': malformed wire; 'rejected': a TransactionError before landing. */
      readonly reason: 'decode' | 'rejected';
      readonly err: unknown;
      readonly message: string;
      readonly logs: readonly string[];
      readonly unitsConsumed: bigint;
    };

/** Result of `simulate`. */
export type SimulateResult =
  | { readonly ok: false; readonly reason: 'decode'; readonly message: string }
  | (SimulationOutcome & {
      readonly ok: true;
      readonly decoded: DecodedTransaction;
      readonly replacementBlockhash: { blockhash: string; lastValidBlockHeight: bigint } | null;
    });

/** Status of a signature as getSignatureStatuses reports it. */
export interface SignatureStatusData {
  readonly slot: bigint;
  readonly confirmations: number | null;
  readonly err: unknown;
  readonly confirmationStatus: Commitment;
}

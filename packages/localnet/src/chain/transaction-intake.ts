/**
 * The chain core's write path: decodes wire transactions, turns away duplicates and unknown or
 * expired blockhashes before anything runs (as Agave does, leaving no trace), executes the rest
 * into the open slot and indexes what landed. Also simulation, which runs without committing.
 */
import type { LiteSVM } from 'litesvm';
import type { ChainAccounts } from './chain-accounts.ts';
import type { ChainIndexes } from './chain-indexes.ts';
import { readComputeBudget } from './fee.ts';
import type { SendResult, SimulateResult } from './send-result.ts';
import { BLOCKHASH_VALID_BLOCKS, type SlotClock } from './slot-clock.ts';
import { runTransaction, simulateDecoded } from './transaction-runner.ts';
import type { ExecutedTransaction } from './types.ts';
import { type DecodedTransaction, decodeWireTransaction, WireDecodeError } from './wire-transaction.ts';

/** The chain parts a transaction goes through, and who hears that one landed. */
export interface TransactionIntakeParts {
  readonly svm: LiteSVM;
  readonly clock: SlotClock;
  readonly accounts: ChainAccounts;
  readonly indexes: ChainIndexes;
  readonly onLanded: (tx: ExecutedTransaction) => void;
}

/** Options of a simulation; `replaceRecentBlockhash` skips the blockhash check. */
export interface SimulateOptions {
  readonly sigVerify: boolean;
  readonly replaceRecentBlockhash: boolean;
}

/** Creates the write path over `parts`; it owns the per-slot and total transaction counts. */
export function createTransactionIntake(parts: TransactionIntakeParts) {
  const { svm, clock, accounts, indexes } = parts;
  const recentSignatures = new Map<string, bigint>();
  let openSlotTxCount = 0;
  let totalTransactions = 0n;

  function decode(wire: Uint8Array): DecodedTransaction | { error: string } {
    try {
      return decodeWireTransaction(wire, accounts.readData);
    } catch (e) {
      if (e instanceof WireDecodeError) return { error: e.message };
      throw e;
    }
  }

  function reject(signature: string | null, reason: 'decode' | 'rejected', err: unknown, message: string): SendResult {
    return { ok: false, signature, reason, err, message, logs: [], unitsConsumed: 0n };
  }

  /** `known`: the same bytes as decoded a moment ago (a preflight's), so they are not decoded twice. */
  function send(wire: Uint8Array, known?: DecodedTransaction): SendResult {
    const decoded = known ?? decode(wire);
    if ('error' in decoded) return reject(null, 'decode', null, decoded.error);
    const signature = decoded.signatures[0] ?? null;
    if (signature !== null && recentSignatures.has(signature))
      return reject(signature, 'rejected', 'AlreadyProcessed', 'This transaction has already been processed');
    if (!clock.isBlockhashValid(decoded.recentBlockhash)) return reject(signature, 'rejected', 'BlockhashNotFound', 'Blockhash not found');
    const slot = clock.openSlot();
    const outcome = runTransaction(svm, accounts.getBalanceAccount, decoded, {
      slot,
      index: openSlotTxCount,
      blockTime: clock.blockTimeOf(slot),
      wire: Uint8Array.from(wire),
    });
    if (!outcome.landed)
      return {
        ok: false,
        signature,
        reason: 'rejected',
        err: outcome.err,
        message: String(outcome.err),
        logs: outcome.logs,
        unitsConsumed: outcome.unitsConsumed,
      };
    const tx = outcome.tx;
    openSlotTxCount++;
    totalTransactions++;
    recentSignatures.set(tx.signature, slot);
    const writableKeys = decoded.accountKeys.filter((_, i) => decoded.writable[i]);
    for (const key of writableKeys) accounts.reindex(key);
    indexes.recordTransaction(tx, writableKeys, readComputeBudget(decoded.instructions, decoded.accountKeys).unitPriceMicroLamports);
    parts.onLanded(tx);
    return { ok: true, signature: tx.signature, tx };
  }

  /** `latest` is the processed blockhash, reported as the replacement when one is asked for. */
  function simulate(wire: Uint8Array, opts: SimulateOptions, latest: { blockhash: string; lastValidBlockHeight: bigint }): SimulateResult {
    const decoded = decode(wire);
    if ('error' in decoded) return { ok: false, reason: 'decode', message: decoded.error };
    const replacement = opts.replaceRecentBlockhash ? { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight } : null;
    if (!opts.replaceRecentBlockhash && !clock.isBlockhashValid(decoded.recentBlockhash)) {
      return {
        ok: true,
        decoded,
        replacementBlockhash: null,
        err: 'BlockhashNotFound',
        logs: [],
        unitsConsumed: 0n,
        innerInstructions: [],
        postAccounts: () => new Map(),
        returnData: null,
      };
    }
    return { ok: true, decoded, replacementBlockhash: replacement, ...simulateDecoded(svm, decoded, wire, opts.sigVerify) };
  }

  return {
    send,
    simulate,
    /** Transactions landed in the open slot so far. */
    openSlotCount: () => openSlotTxCount,
    /** Transactions landed since genesis, open slot included. */
    totalTransactions: () => totalTransactions,
    /** Call once the clock has opened the next slot: restarts the per-slot count, forgets old signatures. */
    slotClosed(): void {
      openSlotTxCount = 0;
      // A duplicate older than the blockhash window would be rejected by the blockhash check anyway.
      const horizon = clock.openSlot() - BigInt(BLOCKHASH_VALID_BLOCKS) - 1n;
      for (const [sig, slot] of recentSignatures) {
        if (slot >= horizon) break;
        recentSignatures.delete(sig);
      }
    },
  };
}

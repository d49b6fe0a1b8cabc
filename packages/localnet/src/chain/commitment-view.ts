/**
 * The chain core's read side at a commitment level: head, blockhashes, signature history,
 * transactions, statuses, fees and epoch figures. Account reads are not here: LiteSVM keeps one
 * (open-slot) state, so commitment only changes which slot, blockhash and transactions are seen.
 */
import type { ChainIndexes, SignatureEntry } from './chain-indexes.ts';
import type { SignatureStatusData } from './send-result.ts';
import { BLOCKHASH_VALID_BLOCKS, type SlotClock } from './slot-clock.ts';
import type { ChainHeadReader, Commitment, EpochInfoData, ExecutedTransaction } from './types.ts';

/** Solana-core version the localnet reports. */
export const LOCALNET_CORE_VERSION = '2.2.0';

/** What the view reads from: the chain's clock, its indexes and its running transaction count. */
export interface CommitmentViewSources {
  readonly clock: SlotClock;
  readonly indexes: ChainIndexes;
  readonly slotsPerEpoch: bigint;
  /** Transactions landed since genesis, open slot included. */
  readonly totalTransactions: () => bigint;
}

/** Creates the read side over `sources`; it holds no state of its own. */
export function createCommitmentView(sources: CommitmentViewSources) {
  const { clock, indexes, slotsPerEpoch } = sources;

  const head: ChainHeadReader = {
    slot: (c) => clock.slotFor(c),
    blockHeight: (c) => clock.block(clock.slotFor(c))?.blockHeight ?? 0n,
    latestBlockhash: (c) => {
      const b = clock.block(clock.slotFor(c));
      if (!b) throw new Error('no block at commitment');
      return { slot: b.slot, blockhash: b.blockhash, lastValidBlockHeight: b.blockHeight + BigInt(BLOCKHASH_VALID_BLOCKS) };
    },
    isBlockhashValid: (blockhash) => ({ slot: clock.slotFor('processed'), valid: clock.isBlockhashValid(blockhash) }),
    version: () => ({ 'solana-core': LOCALNET_CORE_VERSION, 'feature-set': 0 }),
  };

  return {
    ...head,
    /** Newest first; entries above the commitment's slot are hidden. */
    signaturesForAddress(address: string, q: { limit: number; before?: string; until?: string; commitment: Commitment }): SignatureEntry[] {
      const maxSlot = q.commitment === 'processed' ? clock.openSlot() : clock.slotFor(q.commitment);
      return indexes.signaturesForAddress(address, { limit: q.limit, before: q.before, until: q.until, maxSlot });
    },
    /** A retained transaction visible at `commitment`, else null. */
    transaction(signature: string, commitment: Commitment): ExecutedTransaction | null {
      const tx = indexes.transaction(signature);
      if (!tx) return null;
      return commitment === 'processed' || tx.slot <= clock.slotFor(commitment) ? tx : null;
    },
    signatureStatus(signature: string): SignatureStatusData | null {
      const tx = indexes.transaction(signature);
      if (!tx) return null;
      const status = clock.statusOf(tx.slot);
      const confirmations = status === 'finalized' ? null : Number(clock.slotFor('processed') > tx.slot ? clock.slotFor('processed') - tx.slot : 0n);
      return { slot: tx.slot, confirmations, err: tx.err, confirmationStatus: status };
    },
    prioritizationFees: (accounts: readonly string[]) => indexes.prioritizationFees(accounts, clock.slotFor('processed')),
    epochInfo(commitment: Commitment): EpochInfoData {
      const slot = clock.slotFor(commitment);
      const block = clock.block(slot);
      return {
        epoch: clock.epochOf(slot),
        slotIndex: slot % slotsPerEpoch,
        slotsInEpoch: slotsPerEpoch,
        absoluteSlot: slot,
        blockHeight: block?.blockHeight ?? 0n,
        transactionCount: block?.cumulativeTransactionCount ?? sources.totalTransactions(),
      };
    },
    epochSchedule: () => ({
      slotsPerEpoch,
      leaderScheduleSlotOffset: slotsPerEpoch,
      warmup: false,
      firstNormalEpoch: 0n,
      firstNormalSlot: 0n,
    }),
    /** Commitment reached by a slot (a transaction's status from its slot). */
    commitmentOfSlot: (slot: bigint): Commitment => clock.statusOf(slot),
    /** The open slot transactions currently land in. */
    openSlot: () => clock.openSlot(),
    blockTimeOf: (slot: bigint) => clock.blockTimeOf(slot),
  };
}

/**
 * Slot bookkeeping of the chain core: the open slot, the ring of recently closed blocks (enough
 * for the blockhash validity window), commitment slots, epoch and block-time arithmetic. Pure
 * data, no LiteSVM, so the slot model is unit-testable.
 */
import type { Commitment } from './types.ts';

/** Closed blocks kept: the blockhash window (150) plus margin for commitment lookups. */
export const BLOCK_RING_SIZE = 300;
/** Agave's MAX_PROCESSING_AGE: a blockhash is usable for this many blocks. */
export const BLOCKHASH_VALID_BLOCKS = 150;

/** A closed block. */
export interface BlockRecord {
  readonly slot: bigint;
  readonly parentSlot: bigint;
  readonly blockhash: string;
  readonly parentBlockhash: string;
  readonly blockHeight: bigint;
  readonly blockTime: number;
  readonly transactionCount: bigint;
  readonly cumulativeTransactionCount: bigint;
}

/** Slot clock configuration (all required; the chain applies defaults). */
export interface SlotClockConfig {
  readonly slotMs: number;
  readonly slotsPerEpoch: bigint;
  readonly startUnixSeconds: number;
  readonly startSlot: bigint;
  readonly confirmationDepth: number;
  readonly finalizationDepth: number;
}

/** Creates the clock; call `genesis` once before use. */
export function createSlotClock(config: SlotClockConfig) {
  if (config.slotsPerEpoch <= 0n) throw new Error('slotsPerEpoch must be positive');
  const blocks = new Map<bigint, BlockRecord>();
  const heightByHash = new Map<string, bigint>();
  const emitted = new Map<Commitment, bigint>();
  let lastClosed = config.startSlot;

  function blockTimeOf(slot: bigint): number {
    const elapsedMs = Number(slot - config.startSlot) * config.slotMs;
    return config.startUnixSeconds + Math.floor(elapsedMs / 1000);
  }

  function add(block: BlockRecord): void {
    blocks.set(block.slot, block);
    heightByHash.set(block.blockhash, block.blockHeight);
    const evict = block.slot - BigInt(BLOCK_RING_SIZE);
    const old = blocks.get(evict);
    if (old) {
      blocks.delete(evict);
      heightByHash.delete(old.blockhash);
    }
  }

  function slotFor(commitment: Commitment): bigint {
    const depth = commitment === 'processed' ? 0 : commitment === 'confirmed' ? config.confirmationDepth : config.finalizationDepth;
    const s = lastClosed - BigInt(depth);
    return s < config.startSlot ? config.startSlot : s;
  }

  return {
    blockTimeOf,
    slotFor,
    /** Records the start slot as an already closed genesis block. */
    genesis(blockhash: string, blockHeight: bigint): void {
      add({
        slot: config.startSlot,
        parentSlot: config.startSlot,
        blockhash,
        parentBlockhash: blockhash,
        blockHeight,
        blockTime: blockTimeOf(config.startSlot),
        transactionCount: 0n,
        cumulativeTransactionCount: 0n,
      });
      for (const c of ['processed', 'confirmed', 'finalized'] as const) emitted.set(c, config.startSlot);
    },
    openSlot: () => lastClosed + 1n,
    /** Closes the open slot with its new blockhash and returns the block. */
    closeOpenSlot(blockhash: string, transactionCount: bigint, cumulativeTransactionCount: bigint): BlockRecord {
      const parent = blocks.get(lastClosed);
      if (!parent) throw new Error('slot clock used before genesis');
      const slot = lastClosed + 1n;
      const block: BlockRecord = {
        slot,
        parentSlot: parent.slot,
        blockhash,
        parentBlockhash: parent.blockhash,
        blockHeight: parent.blockHeight + 1n,
        blockTime: blockTimeOf(slot),
        transactionCount,
        cumulativeTransactionCount,
      };
      add(block);
      lastClosed = slot;
      return block;
    },
    block: (slot: bigint) => blocks.get(slot),
    /** True while the blockhash belongs to one of the last 150 closed blocks. */
    isBlockhashValid(blockhash: string): boolean {
      const height = heightByHash.get(blockhash);
      const current = blocks.get(lastClosed)?.blockHeight;
      return height !== undefined && current !== undefined && current - height <= BigInt(BLOCKHASH_VALID_BLOCKS);
    },
    /** Commitment a transaction in `slot` has reached. */
    statusOf(slot: bigint): Commitment {
      if (slot <= slotFor('finalized')) return 'finalized';
      if (slot <= slotFor('confirmed')) return 'confirmed';
      return 'processed';
    },
    epochOf: (slot: bigint) => slot / config.slotsPerEpoch,
    epochStartSlot: (epoch: bigint) => epoch * config.slotsPerEpoch,
    lastEmitted: (c: Commitment) => emitted.get(c),
    markEmitted: (c: Commitment, slot: bigint) => void emitted.set(c, slot),
  };
}

/** The clock `createSlotClock` returns. */
export type SlotClock = ReturnType<typeof createSlotClock>;

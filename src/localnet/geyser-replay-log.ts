/**
 * A bounded log of recent chain events so a Subscribe with `from_slot` (as the official client
 * sends when it reconnects) can be served the slots it missed, as Yellowstone's replay buffer does.
 */
import type { BlockMetaEvent, ExecutedTransaction, SlotEvent } from './types.ts';

/** A chain event as the Geyser server receives it. */
export type ChainEvent =
  | { readonly kind: 'transaction'; readonly value: ExecutedTransaction }
  | { readonly kind: 'blockMeta'; readonly value: BlockMetaEvent }
  | { readonly kind: 'slot'; readonly value: SlotEvent };

/** Limits of the log; whichever is reached first evicts the oldest events. */
export interface ReplayLogLimits {
  readonly maxSlots: number;
  readonly maxEvents: number;
}

/** See the module comment. */
export class ReplayLog {
  #events: ChainEvent[] = [];
  #head = 0;
  #newestSlot = -1n;

  constructor(private readonly limits: ReplayLogLimits) {}

  record(event: ChainEvent): void {
    this.#events.push(event);
    if (event.value.slot > this.#newestSlot) this.#newestSlot = event.value.slot;
    const oldestKept = this.#newestSlot - BigInt(this.limits.maxSlots) + 1n;
    while (this.#head < this.#events.length) {
      const front = this.#events[this.#head];
      const tooMany = this.#events.length - this.#head > this.limits.maxEvents;
      if (front === undefined || (!tooMany && front.value.slot >= oldestKept)) break;
      this.#head += 1;
    }
    // Compact lazily so eviction stays O(1) amortised.
    if (this.#head > 1024 && this.#head * 2 > this.#events.length) {
      this.#events = this.#events.slice(this.#head);
      this.#head = 0;
    }
  }

  /** The oldest slot the log can replay from, null when empty. */
  firstAvailable(): bigint | null {
    let oldest: bigint | null = null;
    for (let i = this.#head; i < this.#events.length; i += 1) {
      const slot = this.#events[i]?.value.slot;
      if (slot !== undefined && (oldest === null || slot < oldest)) oldest = slot;
    }
    return oldest;
  }

  /** Events of slots >= `slot`, in the order they happened. */
  since(slot: bigint): ChainEvent[] {
    const out: ChainEvent[] = [];
    for (let i = this.#head; i < this.#events.length; i += 1) {
      const event = this.#events[i];
      if (event !== undefined && event.value.slot >= slot) out.push(event);
    }
    return out;
  }
}

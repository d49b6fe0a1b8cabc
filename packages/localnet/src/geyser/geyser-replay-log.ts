/**
 * A bounded log of recent chain events so a Subscribe with `from_slot` (as the official client
 * sends when it reconnects) can be served the slots it missed, as Yellowstone's replay buffer does.
 */
import type { BlockMetaEvent, ExecutedTransaction, SlotEvent } from '../chain/types.ts';

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

  /**
   * The oldest slot the log holds in full, null when none. A slot's transactions are emitted
   * while it is open, after the `processed` status of the slot before it; so only a slot whose
   * predecessor's `processed` status is still in the log is complete. Reporting the oldest slot of
   * any event would accept a `from_slot` for a slot seen only partly (e.g. one whose confirmed
   * status arrived right after a restart) and replay it incompletely.
   */
  firstAvailable(): bigint | null {
    for (let i = this.#head; i < this.#events.length; i += 1) {
      const event = this.#events[i];
      if (event?.kind === 'slot' && event.value.status === 'processed') return event.value.slot + 1n;
    }
    return null;
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

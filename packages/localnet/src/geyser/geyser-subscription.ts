/**
 * One Subscribe stream's state: its current filters, the per-slot buffer that holds transactions
 * and block metas until their slot reaches the requested commitment, and a byte budget for what
 * the peer has not yet taken off the wire. Transport-agnostic: the server hands it a sink.
 */
import {
  EMPTY_FILTERS,
  matchBlockMetaFilters,
  matchSlotFilters,
  matchTransactionFilters,
  matchTransactionStatusFilters,
  type SubscriptionFilters,
} from './geyser-filters.ts';
import { UPDATE_FIELD, encode, frameUpdate, type UpdateField } from './geyser-proto.ts';
import { buildSlotUpdate } from './geyser-messages.ts';
import type { BlockMetaEvent, Commitment, ExecutedTransaction, SlotEvent } from '../chain/types.ts';

/** Where a subscription's encoded updates go. */
export interface SubscriptionSink {
  /** Sends one framed `SubscribeUpdate`; `flushed` runs once the transport has taken it. */
  send(update: Buffer, flushed: () => void): void;
  /** Ends the stream with RESOURCE_EXHAUSTED and the given details. */
  exhausted(details: string): void;
}

/** Encoded payloads of one transaction, built at most once however many streams want them. */
export interface TransactionPayloads {
  transaction(): Uint8Array;
  transactionStatus(): Uint8Array;
}

/** Counters shared by all subscriptions of a server. */
export interface SubscriptionCounters {
  updatesSent: number;
  bytesSent: number;
  slowSubscribersClosed: number;
  bufferedSlotsDropped: number;
}

interface BufferedUpdate {
  readonly filters: readonly string[];
  readonly field: UpdateField;
  readonly payload: Uint8Array;
}

const COMMITMENT_RANK: Readonly<Record<Commitment, number>> = { processed: 0, confirmed: 1, finalized: 2 };

/** A stream's limits. */
export interface SubscriptionLimits {
  /** Bytes sent but not yet flushed to the peer beyond which the stream is closed. */
  readonly maxQueuedBytes: number;
  /** Slots awaiting commitment beyond which the oldest is dropped (a chain that stops confirming). */
  readonly maxBufferedSlots: number;
}

/** See the module comment. */
export class Subscription {
  #filters: SubscriptionFilters = EMPTY_FILTERS;
  readonly #pending = new Map<bigint, BufferedUpdate[]>();
  #queuedBytes = 0;
  #closed = false;

  constructor(
    private readonly sink: SubscriptionSink,
    private readonly limits: SubscriptionLimits,
    private readonly counters: SubscriptionCounters,
  ) {}

  get filters(): SubscriptionFilters {
    return this.#filters;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Replaces the filters (a new SubscribeRequest on the stream); a commitment change drops the buffer. */
  setFilters(filters: SubscriptionFilters): void {
    if (filters.commitment !== this.#filters.commitment) this.#pending.clear();
    this.#filters = filters;
  }

  /** Marks the stream finished so nothing more is queued. */
  markClosed(): void {
    this.#closed = true;
    this.#pending.clear();
  }

  onTransaction(tx: ExecutedTransaction, payloads: TransactionPayloads): void {
    const names = matchTransactionFilters(this.#filters, tx);
    if (names.length > 0) this.#deliver(tx.slot, { filters: names, field: UPDATE_FIELD.transaction, payload: payloads.transaction() });
    const statusNames = matchTransactionStatusFilters(this.#filters, tx);
    if (statusNames.length > 0) {
      this.#deliver(tx.slot, { filters: statusNames, field: UPDATE_FIELD.transactionStatus, payload: payloads.transactionStatus() });
    }
  }

  onBlockMeta(meta: BlockMetaEvent, payload: () => Uint8Array): void {
    const names = matchBlockMetaFilters(this.#filters);
    if (names.length > 0) this.#deliver(meta.slot, { filters: names, field: UPDATE_FIELD.blockMeta, payload: payload() });
  }

  /**
   * Slot updates are never buffered. When a slot reaches the stream's commitment, the buffered
   * updates of it and of every earlier slot (its ancestors on the localnet's single fork) go out
   * first, so the slot status closes its slot's data as it does at `processed`.
   */
  onSlot(event: SlotEvent): void {
    const commitment = this.#filters.commitment;
    if (commitment !== 'processed' && COMMITMENT_RANK[event.status] >= COMMITMENT_RANK[commitment]) {
      this.#flushThrough(event.slot);
    }
    const names = matchSlotFilters(this.#filters, event.status);
    if (names.length > 0) this.#send(names, UPDATE_FIELD.slot, encode.slot(buildSlotUpdate(event)));
  }

  /** Answers a client ping (`SubscribeRequest.ping`). */
  pong(id: number): void {
    this.#send([], UPDATE_FIELD.pong, encode.pong(id));
  }

  /** The server's keep-alive ping. */
  ping(): void {
    this.#send([], UPDATE_FIELD.ping, encode.ping());
  }

  #deliver(slot: bigint, update: BufferedUpdate): void {
    if (this.#filters.commitment === 'processed') {
      this.#send(update.filters, update.field, update.payload);
      return;
    }
    let list = this.#pending.get(slot);
    if (list === undefined) {
      list = [];
      this.#pending.set(slot, list);
      this.#dropOldestBeyondLimit();
    }
    list.push(update);
  }

  #dropOldestBeyondLimit(): void {
    // Slots arrive in order, so the first key in insertion order is the oldest.
    for (const oldest of this.#pending.keys()) {
      if (this.#pending.size <= this.limits.maxBufferedSlots) break;
      this.#pending.delete(oldest);
      this.counters.bufferedSlotsDropped += 1;
    }
  }

  #flushThrough(slot: bigint): void {
    const ready = [...this.#pending.keys()].filter((pendingSlot) => pendingSlot <= slot).sort((a, b) => (a < b ? -1 : 1));
    for (const readySlot of ready) {
      const updates = this.#pending.get(readySlot) ?? [];
      this.#pending.delete(readySlot);
      for (const update of updates) this.#send(update.filters, update.field, update.payload);
    }
  }

  #send(filters: readonly string[], field: UpdateField, payload: Uint8Array): void {
    if (this.#closed) return;
    const frame = frameUpdate(filters, field, payload, Date.now());
    if (this.#queuedBytes + frame.length > this.limits.maxQueuedBytes) {
      // The peer is not reading: queueing more would grow memory without bound.
      this.counters.slowSubscribersClosed += 1;
      const details = `subscriber too slow: ${this.#queuedBytes} bytes not taken by the client (limit ${this.limits.maxQueuedBytes}); reconnect`;
      this.markClosed();
      this.sink.exhausted(details);
      return;
    }
    this.#queuedBytes += frame.length;
    this.counters.updatesSent += 1;
    this.counters.bytesSent += frame.length;
    this.sink.send(frame, () => {
      this.#queuedBytes -= frame.length;
    });
  }
}

/**
 * Routes each update of the Geyser subscription to the timing handlers (slots of every status,
 * parsed non-vote transactions, blocks meta) and keeps what the stream needs to know of the chain:
 * the newest slot, the newest confirmed one (where a resubscription resumes) and when a slot the
 * chain made after the subscription last arrived (what liveness is judged by). Updates are read
 * structurally, like geyser-tx-parse.ts reads transactions, so only geyser-client.ts imports the
 * Yellowstone library.
 */
import { decodeBase58 } from '../solana/base58.ts';
import { JITO_TIP_ACCOUNTS, keyId, parseTransaction, type ParsedTransaction, type TxInfoLike } from './geyser-tx-parse.ts';

export type SlotStatusName = 'processed' | 'confirmed' | 'finalized';
const SLOT_STATUS: Readonly<Record<number, SlotStatusName>> = { 0: 'processed', 1: 'confirmed', 2: 'finalized' };

/** What the stream feeds (the timing caches). Called synchronously on the event loop. */
export interface GeyserHandlers {
  /**
   * A new subscription is open: data before it may be partial. `resumeFrom` is set when the
   * subscription asked the server to replay from that slot (the slot after the last confirmed one).
   */
  onSubscribed(resumeFrom: number | null): void;
  /** `replayed`: the slot is at or below the server's head when we resubscribed (its arrival time is not its time). */
  onSlot(slot: number, status: SlotStatusName, atMs: number, replayed: boolean): void;
  onTransaction(slot: number, tx: ParsedTransaction): void;
  onBlockMeta?(slot: number, blockTimeSeconds: number | null, executedTransactionCount: number): void;
}

/** The fields of Yellowstone's `SubscribeUpdate` read here (u64 fields arrive as decimal strings). */
export interface GeyserUpdateLike {
  readonly slot?: { readonly slot: string; readonly status: number } | undefined;
  readonly transaction?: { readonly slot: string; readonly transaction: TxInfoLike | undefined } | undefined;
  readonly blockMeta?:
    | { readonly slot: string; readonly blockTime: { readonly timestamp: string } | undefined; readonly executedTransactionCount: string }
    | undefined;
  readonly ping?: object | undefined;
}

/** What the stream has seen of the chain, across subscriptions; only the router advances it. */
export interface SlotProgress {
  /** Updates of any kind. */
  updates: number;
  slotUpdates: number;
  lastSlot: number | null;
  /** When a slot the chain made after the current subscription last arrived. */
  lastSlotAtMs: number | null;
  /** When any slot update last arrived, replayed ones included: a replay under way is not a stall. */
  lastAnySlotAtMs: number | null;
  lastConfirmed: number | null;
  /** Slots up to this one are replays of a from_slot resubscription (the server's head then); set by the client. */
  replayUntil: number | null;
}

/** What the router calls besides the handlers. */
export interface UpdateRouterConfig {
  readonly handlers: GeyserHandlers;
  /** A slot the chain made after the subscription arrived: the stream is live. */
  readonly onFreshSlot: () => void;
}

/** Routes updates into the handlers and keeps the progress. */
export interface UpdateRouter {
  readonly progress: SlotProgress;
  /** Handles one update; `answerPing` is called when the update is the server's ping. */
  route(update: GeyserUpdateLike, answerPing: () => void): void;
}

/** Creates the router with empty progress. */
export function createUpdateRouter(config: UpdateRouterConfig): UpdateRouter {
  const tipIds = new Set(JITO_TIP_ACCOUNTS.map((a) => keyId(decodeBase58(a)!)));
  const progress: SlotProgress = {
    updates: 0,
    slotUpdates: 0,
    lastSlot: null,
    lastSlotAtMs: null,
    lastAnySlotAtMs: null,
    lastConfirmed: null,
    replayUntil: null,
  };
  const { handlers } = config;

  function onSlot(update: NonNullable<GeyserUpdateLike['slot']>, now: number): void {
    const status = SLOT_STATUS[update.status];
    if (status === undefined) return;
    const slot = Number(update.slot);
    const replayed = progress.replayUntil !== null && slot <= progress.replayUntil;
    progress.slotUpdates++;
    progress.lastAnySlotAtMs = now;
    if (progress.lastSlot === null || slot > progress.lastSlot) progress.lastSlot = slot;
    if (status === 'confirmed' && (progress.lastConfirmed === null || slot > progress.lastConfirmed)) progress.lastConfirmed = slot;
    // Only a slot the chain made after we resubscribed proves the stream is live.
    if (!replayed) {
      progress.lastSlotAtMs = now;
      config.onFreshSlot();
    }
    handlers.onSlot(slot, status, now, replayed);
  }

  return {
    progress,
    route(update, answerPing) {
      progress.updates++;
      const now = Date.now();
      if (update.slot) {
        onSlot(update.slot, now);
      } else if (update.transaction?.transaction) {
        const parsed = parseTransaction(update.transaction.transaction, tipIds);
        if (parsed) handlers.onTransaction(Number(update.transaction.slot), parsed);
      } else if (update.blockMeta) {
        const meta = update.blockMeta;
        handlers.onBlockMeta?.(Number(meta.slot), meta.blockTime ? Number(meta.blockTime.timestamp) : null, Number(meta.executedTransactionCount));
      } else if (update.ping) {
        // Answering the server's ping keeps intermediaries from closing an idle-looking stream.
        answerPing();
      }
    },
  };
}

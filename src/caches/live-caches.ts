/**
 * The live chain caches: reads the epoch schedule once, builds the caches over it, and opens the
 * one Geyser subscription that keeps them warm and feeds the payments' signature watch. This is
 * infrastructure the payments and the live streams depend on, so the service opens it before any
 * handler group and hands it to them; the timing handlers only read the caches and the stream's
 * state.
 */
import { createGeyserStream, GEYSER_STALE_MS, type GeyserStream } from '../chain/geyser/geyser-client.ts';
import type { GeyserHandlers } from '../chain/geyser/geyser-update-router.ts';
import { createSignatureWatch, type SignatureFeed, type SignatureWatch } from '../chain/geyser/signature-watch.ts';
import type { RpcTransport } from '../chain/solana/rpc-client.ts';
import { createTimingRpcMethods, type TimingRpcMethods } from '../chain/solana/rpc-timing-methods.ts';
import { PRIORITY_FEE_WINDOW_SLOTS } from './priority-fee-cache.ts';
import { CHECKPOINT_EVERY_SLOTS } from './slot-clock-cache.ts';
import { createTimingCaches, type TimingCaches } from './timing-caches.ts';
import { TIP_HISTORY_EVERY_SLOTS, TIP_WINDOW_SLOTS } from './tip-floor-cache.ts';
import { liveCachesStatus, type LiveCachesStatus } from './live-caches-status.ts';

/** How long opening waits for the first streamed slot before serving (from the RPC meanwhile). */
export const STREAM_START_WAIT_MS = 5_000;
const SCHEDULE_ATTEMPTS = 4;
const SCHEDULE_RETRY_MS = 500;

export interface LiveCachesOptions {
  readonly rpcTransport: RpcTransport;
  readonly geyser: { readonly url: string; readonly token: string | null };
  readonly staleMs?: number;
  readonly feeWindowSlots?: number;
  readonly tipWindowSlots?: number;
  readonly tipHistoryEverySlots?: number;
  readonly checkpointEverySlots?: number;
  readonly backoffInitialMs?: number;
  readonly backoffMaxMs?: number;
  /** How long opening waits for the first streamed slot, ms (default STREAM_START_WAIT_MS; 0: not at all). */
  readonly startWaitMs?: number;
}

/** The windows the caches were built with (the handlers describe their answers by them). */
export interface LiveWindows {
  readonly feeWindowSlots: number;
  readonly tipWindowSlots: number;
  readonly tipHistoryEverySlots: number;
  readonly checkpointEverySlots: number;
}

export interface LiveCaches {
  readonly caches: TimingCaches;
  readonly stream: GeyserStream;
  /** The Solana payments' confirmations, fed by the same stream (it says nothing while the stream is not live). */
  readonly signatures: SignatureWatch;
  readonly timingRpc: TimingRpcMethods;
  readonly windows: LiveWindows;
  /** For /health: the stream's state and what the caches hold (no URL, no token). */
  status(): LiveCachesStatus;
  /** Ends the subscription; the caches keep what they hold. */
  close(): Promise<void>;
}

/** The schedule is needed once, at start: a briefly unavailable RPC should not stop the service. */
async function withRetries<T>(load: () => Promise<T>, attempts = SCHEDULE_ATTEMPTS): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await load();
    } catch (error) {
      if (i >= attempts) throw error;
      await new Promise((r) => setTimeout(r, SCHEDULE_RETRY_MS * i));
    }
  }
}

/** The caches' handlers, and the signature watch's after them. */
function withSignatures(handlers: GeyserHandlers, signatures: SignatureFeed): GeyserHandlers {
  return {
    ...handlers,
    onSlot(slot, status, atMs, replayed) {
      handlers.onSlot(slot, status, atMs, replayed);
      signatures.onSlot(slot, status, atMs, replayed);
    },
    onTransaction(slot, tx) {
      handlers.onTransaction(slot, tx);
      signatures.onTransaction(slot, tx);
    },
  };
}

/** Builds the caches, starts the stream feeding them and the signature watch, and waits (bounded) for its first slot. */
export async function openLiveCaches(options: LiveCachesOptions): Promise<LiveCaches> {
  const timingRpc = createTimingRpcMethods(options.rpcTransport);
  const schedule = await withRetries(() => timingRpc.getEpochSchedule());
  const windows: LiveWindows = {
    feeWindowSlots: options.feeWindowSlots ?? PRIORITY_FEE_WINDOW_SLOTS,
    tipWindowSlots: options.tipWindowSlots ?? TIP_WINDOW_SLOTS,
    tipHistoryEverySlots: options.tipHistoryEverySlots ?? TIP_HISTORY_EVERY_SLOTS,
    checkpointEverySlots: options.checkpointEverySlots ?? CHECKPOINT_EVERY_SLOTS,
  };
  const caches = createTimingCaches({ schedule, ...windows });
  // The watch asks the stream whether it is live; the stream is built just below and never replaced.
  const signatures = createSignatureWatch({ isLive: () => stream.isLive() });
  const stream = createGeyserStream({
    url: options.geyser.url,
    token: options.geyser.token,
    staleMs: options.staleMs ?? GEYSER_STALE_MS,
    handlers: withSignatures(caches.handlers, signatures.feed),
    ...(options.backoffInitialMs ? { backoffInitialMs: options.backoffInitialMs } : {}),
    ...(options.backoffMaxMs ? { backoffMaxMs: options.backoffMaxMs } : {}),
  });
  stream.start();
  const startWaitMs = options.startWaitMs ?? STREAM_START_WAIT_MS;
  if (startWaitMs > 0) await stream.whenLive(startWaitMs);
  return {
    caches,
    stream,
    signatures,
    timingRpc,
    windows,
    status: () => liveCachesStatus(stream, caches),
    close: () => stream.close(),
  };
}

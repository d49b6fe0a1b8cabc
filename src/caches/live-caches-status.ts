/**
 * What /health shows of the live caches: the Geyser stream's state and what the caches hold. No
 * URL and no token: the stream's last failure is one fixed sentence per kind, and the gRPC text
 * itself (an endpoint's own words, an address) stays in the service log (geyser-client.ts).
 */
import type { GeyserStream } from '../chain/geyser/geyser-client.ts';
import type { GeyserState } from '../chain/geyser/geyser-liveness.ts';
import type { TimingCaches } from './timing-caches.ts';

export interface LiveCachesStatus {
  readonly geyser: {
    readonly state: GeyserState;
    readonly live: boolean;
    readonly lastSlot: number | null;
    readonly lastSlotAgeMs: number | null;
    readonly subscriptions: number;
    readonly updates: number;
    readonly lastError: string | null;
  };
  readonly caches: {
    readonly absorbed: number;
    readonly feeSlots: number;
    readonly feeIndexedAccounts: number;
    readonly tipSlots: number;
    /** Tips in the window's complete slots: /v1/tipfloor answers once there is one. */
    readonly tips: number;
    readonly checkpoints: number;
  };
}

/** The stream's last failure as /health shows it: one fixed sentence per kind of failure. */
export function geyserErrorSentence(message: string): string {
  const stale = /no slot update for \d+ ms/.exec(message);
  if (stale) return `${stale[0]}: stream treated as stale`;
  if (/did not complete within/.test(message)) return 'the connection did not complete within the connect time-out';
  if (/unauthenticated|x-token|permission/i.test(message)) return 'the endpoint refused the x-token (unauthenticated)';
  if (/reset|closed|cancel|protocol|frame|transport|unavailable|refused/i.test(message)) return 'the connection was reset, closed or broke the protocol';
  return 'the stream failed (details in the service log)';
}

/** The stream's state and the caches' sizes now. */
export function liveCachesStatus(stream: GeyserStream, caches: TimingCaches, nowMs: number = Date.now()): LiveCachesStatus {
  const s = stream.status();
  return {
    geyser: {
      state: s.state,
      live: stream.isLive(),
      lastSlot: s.lastSlot,
      lastSlotAgeMs: s.lastSlotAtMs === null ? null : nowMs - s.lastSlotAtMs,
      subscriptions: s.subscriptions,
      updates: s.updates,
      lastError: s.lastError ? geyserErrorSentence(s.lastError.message) : null,
    },
    caches: {
      absorbed: caches.absorbed,
      feeSlots: caches.fees.window.size,
      feeIndexedAccounts: caches.fees.indexedAccounts,
      tipSlots: caches.tips.window.size,
      tips: caches.tips.window.completeBuckets().reduce((n, b) => n + b.items.length, 0),
      checkpoints: caches.clock.points().length,
    },
  };
}

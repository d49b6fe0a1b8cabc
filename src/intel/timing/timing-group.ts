/**
 * The timing group: `/v1/tipfloor`, `/v1/priority-fee`, `/v1/epoch` and `/v1/sgp-checkpoint`,
 * answered from caches the Geyser stream keeps warm (RPC fallback while it is down). It also
 * lends pretrade the suggested priority-fee bands.
 */
import { ServiceError } from '../../errors.ts';
import type { FeeBands, HandlerDeps, HandlerGroup } from '../handler-group.ts';
import type { TimingCaches } from '../../caches/timing-caches.ts';
import { startTimingRuntime, TIMING_PATHS, type TimingHandlers, type TimingPath, type TimingRuntime } from './timing-runtime.ts';

/**
 * The stream's last failure as /health shows it: one fixed sentence per kind of failure. The gRPC
 * text itself (an endpoint's own words, an address) is in the log (geyser-client.ts).
 */
export function geyserErrorSentence(message: string): string {
  const stale = /no slot update for \d+ ms/.exec(message);
  if (stale) return `${stale[0]}: stream treated as stale`;
  if (/did not complete within/.test(message)) return 'the connection did not complete within the connect time-out';
  if (/unauthenticated|x-token|permission/i.test(message)) return 'the endpoint refused the x-token (unauthenticated)';
  if (/reset|closed|cancel|protocol|frame|transport|unavailable|refused/i.test(message)) return 'the connection was reset, closed or broke the protocol';
  return 'the stream failed (details in the service log)';
}

/** The timing handlers plus the fee bands other groups report. */
export interface TimingGroup extends HandlerGroup<TimingPath> {
  feeBands(signal: AbortSignal): Promise<FeeBands>;
  /** The caches the Geyser stream keeps warm (the live streams' source), or null before start and after close. */
  caches(): TimingCaches | null;
  /** Whether the Geyser stream is live now (false before start and after close). */
  streamLive(): boolean;
  /** For /health: the Geyser stream's state and what the caches hold (no URL, no token). */
  status(): Record<string, unknown>;
}

/** Each timing path's handler, calling the running runtime's handler of that path. */
function forwardedTo(running: () => TimingRuntime): TimingHandlers {
  const forward = (path: TimingPath) => [path, (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => running().handlers[path](query, signal)];
  return Object.fromEntries(TIMING_PATHS.map(forward)) as TimingHandlers;
}

/** Builds the timing group; the stream opens in `start()`. */
export function createTimingGroup(deps: HandlerDeps): TimingGroup {
  let runtime: TimingRuntime | null = null;
  const running = (): TimingRuntime => {
    if (runtime === null) throw new ServiceError('upstream_unavailable', 'the timing caches are not running yet');
    return runtime;
  };
  return {
    // The runtime starts with the service: until then (and after close) each path answers 502.
    handlers: forwardedTo(running),
    async start() {
      runtime = await startTimingRuntime({
        rpc: deps.rpc,
        rpcTransport: deps.rpcTransport,
        pool: deps.pool,
        geyser: deps.geyser,
        staleMs: deps.settings.geyserStaleMs,
        backoffMaxMs: deps.settings.geyserBackoffMaxMs,
        startWaitMs: deps.settings.geyserStartWaitMs,
      });
    },
    async close() {
      await runtime?.close();
      runtime = null;
    },
    feeBands: (signal) => running().feeBands(signal),
    caches: () => runtime?.caches ?? null,
    streamLive: () => runtime?.stream.isLive() ?? false,
    status() {
      if (runtime === null) return { geyser: { state: 'not-started' } };
      const { stream, caches } = runtime;
      const s = stream.status();
      return {
        geyser: {
          state: s.state,
          live: stream.isLive(),
          lastSlot: s.lastSlot,
          lastSlotAgeMs: s.lastSlotAtMs === null ? null : Date.now() - s.lastSlotAtMs,
          subscriptions: s.subscriptions,
          updates: s.updates,
          lastError: s.lastError ? geyserErrorSentence(s.lastError.message) : null,
        },
        caches: {
          absorbed: caches.absorbed,
          feeSlots: caches.fees.window.size,
          feeIndexedAccounts: caches.fees.indexedAccounts,
          tipSlots: caches.tips.window.size,
          checkpoints: caches.clock.points().length,
        },
      };
    },
  };
}

/**
 * The paid live streams of the service (docs/streams.md): their payments through the paid
 * calls' processor and limits, the instance's hub (sessions, the lapse wheel on the stream
 * clock), the uWS routes' settings, and the updates the timing caches publish to them.
 */
import { STREAM_CATALOG, STREAM_PATH_PREFIX } from '../catalog/streams.ts';
import type { HttpServer, HttpServerConfig } from '../http/server/server.ts';
import { createStreamHub, type StreamClock, type StreamHub } from '../http/streams/stream-hub.ts';

export type { StreamClock };
import { STREAM_MAX_SOCKETS, STREAM_SOCKETS_PER_CLIENT } from '../http/streams/stream-protocol.ts';
import { createNewPairsFeed, NEW_PAIRS_TOPIC, type NewPairsFeed, type NewPairsFeedStatus, newPairsSource } from '../intel/market/new-pairs-feed.ts';
import { publishStreamUpdates } from '../intel/timing/stream-updates.ts';
import type { TimingCaches } from '../caches/timing-caches.ts';
import { createStreamPayments, type StreamPaymentsConfig } from '../x402/flow/stream-payment.ts';

export interface StreamStackConfig extends Omit<StreamPaymentsConfig, 'now'> {
  /** The stream clock (default: the wall clock and one real interval). */
  readonly clock?: StreamClock;
  readonly baseUrl: () => string;
  /** The timing caches the Geyser stream keeps warm, once started. */
  readonly caches: () => TimingCaches | null;
  /** Stream sockets per instance and per client (defaults: STREAM_MAX_SOCKETS, STREAM_SOCKETS_PER_CLIENT). */
  readonly sockets?: { readonly max: number; readonly perClient: number };
  /** The market source the new-pairs stream polls (GeckoTerminal's base URL), its timeout, and the poll interval (default NEW_PAIRS_POLL_MS). */
  readonly newPairs: { readonly geckoterminalUrl: string; readonly timeoutMs: number; readonly pollMs?: number };
}

export interface StreamStack {
  readonly hub: StreamHub;
  /** The HTTP server's `streams` setting. */
  readonly server: NonNullable<HttpServerConfig['streams']>;
  /** Starts publishing the caches' updates through `server`. */
  attach(server: Pick<HttpServer, 'publish' | 'subscribers'>): void;
  /** For /health: the hub's sessions and the new-pairs feed's polls. */
  status(): ReturnType<StreamHub['status']> & { readonly newPairs: NewPairsFeedStatus | null };
  close(): void;
}

/** Builds the stack; updates flow once `attach` is called. */
export function createStreamStack(config: StreamStackConfig): StreamStack {
  const clock = config.clock;
  const payments = createStreamPayments({ ...config, now: () => (clock ?? Date).now() });
  const hub = createStreamHub({ payments, ...(clock ? { clock } : {}) });
  const sockets = config.sockets ?? { max: STREAM_MAX_SOCKETS, perClient: STREAM_SOCKETS_PER_CLIENT };
  let stop: (() => void) | null = null;
  let newPairs: NewPairsFeed | null = null;
  const onSubscribe = (stream: { readonly topic: string }) => {
    if (stream.topic === NEW_PAIRS_TOPIC) newPairs?.wake();
  };
  return {
    hub,
    server: { streams: STREAM_CATALOG, hub, ...sockets, baseUrl: config.baseUrl, onSubscribe },
    attach(server) {
      const sink = {
        wanted: (topic: string) => server.subscribers(`${STREAM_PATH_PREFIX}${topic}`) > 0,
        publish: (topic: string, text: string) => server.publish(`${STREAM_PATH_PREFIX}${topic}`, text),
      };
      const { geckoterminalUrl, timeoutMs, pollMs } = config.newPairs;
      newPairs = createNewPairsFeed({
        gecko: newPairsSource(geckoterminalUrl, timeoutMs),
        sink,
        slot: () => config.caches()?.clock.head()?.slot ?? null,
        ...(pollMs === undefined ? {} : { pollMs }),
        // The source's own message names no key or secret; its URL is the operator's, logged like the paid handlers' faults.
        fault: (err) => console.error(`streams: new-pairs poll failed: ${err instanceof Error ? err.message : String(err)}`),
      });
      const caches = config.caches();
      if (!caches) return;
      stop = publishStreamUpdates(caches, sink, (err) => console.error(`streams: an update failed: ${err instanceof Error ? err.message : String(err)}`));
    },
    status: () => ({ ...hub.status(), newPairs: newPairs?.status() ?? null }),
    close() {
      stop?.();
      stop = null;
      newPairs?.close();
    },
  };
}

/**
 * The paid streams of one instance, without uWS: every stream session, the one timer wheel that
 * renews and lapses them (one interval per instance, on the injected clock), the cut of slow
 * consumers on each tick, and which socket holds which paid window (a window is held by one
 * socket: the same payment resumed on another closes the first, `superseded`).
 */
import type { StreamEntry } from '../../catalog/streams.ts';
import type { StreamPayments } from '../../x402/flow/stream-payment.ts';
import { createLapseWheel, WHEEL_SLOT_MS } from './lapse-wheel.ts';
import { STREAM_MAX_BACKPRESSURE_BYTES } from './stream-protocol.ts';
import { type SessionHost, StreamSession, type StreamSocket } from './stream-session.ts';

/** The stream clock: what time it is, and the one interval that turns the wheel. Tests pass one they move. */
export interface StreamClock {
  now(): number;
  /** Calls `tick` every `ms`; returns what stops it. */
  every(ms: number, tick: () => void): () => void;
}

/** The wall clock and a real interval (unref'd: it never holds the process open). */
export const SYSTEM_STREAM_CLOCK: StreamClock = {
  now: Date.now,
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

export interface StreamHubConfig {
  readonly payments: StreamPayments;
  readonly clock?: StreamClock;
  /** Unsent bytes past which a paid subscriber is cut (default STREAM_MAX_BACKPRESSURE_BYTES). */
  readonly maxBackpressureBytes?: number;
  readonly fault?: (what: string, err: unknown) => void;
}

export interface StreamHub {
  /** A session for a socket just opened on `stream`. */
  open(identity: { readonly stream: StreamEntry; readonly resourceUrl: string; readonly client: string }, socket: StreamSocket): StreamSession;
  /** Turns the wheel once now (the interval calls it). */
  tick(): void;
  /** Cuts every session (`shutting_down`) and stops the interval. */
  close(): void;
  /** For /health: sessions open, paid, and moments filed. */
  status(): { readonly open: number; readonly paid: number; readonly filed: number };
}

function reportFault(what: string, err: unknown): void {
  console.error(`streams: ${what}: ${err instanceof Error ? err.message : String(err)}`);
}

/** Creates the hub and starts its wheel. */
export function createStreamHub(config: StreamHubConfig): StreamHub {
  const clock = config.clock ?? SYSTEM_STREAM_CLOCK;
  const limit = config.maxBackpressureBytes ?? STREAM_MAX_BACKPRESSURE_BYTES;
  const sessions = new Set<StreamSession>();
  const wheel = createLapseWheel<StreamSession>(WHEEL_SLOT_MS);
  const windows = new Map<string, StreamSession>();
  const windowOf = new Map<StreamSession, string>();
  const host: SessionHost = {
    payments: config.payments,
    now: () => clock.now(),
    schedule: (session, atMs) => wheel.at(session, atMs),
    claim(window, session) {
      const holder = windows.get(window);
      const previous = windowOf.get(session);
      if (previous !== undefined && previous !== window && windows.get(previous) === session) windows.delete(previous);
      windows.set(window, session);
      windowOf.set(session, window);
      if (holder && holder !== session) holder.cut('superseded');
    },
    release(session) {
      sessions.delete(session);
      wheel.cancel(session);
      const window = windowOf.get(session);
      if (window !== undefined && windows.get(window) === session) windows.delete(window);
      windowOf.delete(session);
    },
    fault: config.fault ?? reportFault,
  };
  const tick = () => {
    const now = clock.now();
    for (const session of wheel.due(now)) session.due(now);
    for (const session of sessions) if (session.behind(limit)) session.cut('slow_consumer');
  };
  const stop = clock.every(WHEEL_SLOT_MS, tick);
  return {
    open(identity, socket) {
      const session = new StreamSession(identity, socket, host);
      sessions.add(session);
      session.open();
      return session;
    },
    tick,
    close() {
      stop();
      for (const session of [...sessions]) session.cut('shutting_down');
    },
    status: () => ({ open: sessions.size, paid: [...sessions].filter((s) => s.paidUntil > 0).length, filed: wheel.size }),
  };
}

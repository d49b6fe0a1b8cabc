/**
 * The state of the Geyser stream and the callers waiting for it to be live. Which events move it
 * (a fresh slot, a stale timer, a dropped or closed stream) is the client's to judge
 * (geyser-client.ts); this only holds the state and wakes the waiters when it becomes live.
 */

/** `stale`: torn down for silence; `down`: dropped or refused; both reconnect. `closed` is final. */
export type GeyserState = 'connecting' | 'live' | 'stale' | 'down' | 'closed';

/** The stream's current state, changed only through `set`. */
export interface GeyserLiveness {
  state(): GeyserState;
  /** Moves to `next`; becoming live wakes every waiter. */
  set(next: GeyserState): void;
  /** Resolves true once live, false after `timeoutMs`. */
  whenLive(timeoutMs: number): Promise<boolean>;
}

/** Starts in `connecting`. */
export function createGeyserLiveness(): GeyserLiveness {
  let state: GeyserState = 'connecting';
  const liveWaiters = new Set<() => void>();
  return {
    state: () => state,
    set(next) {
      state = next;
      if (next === 'live') for (const wake of liveWaiters) wake();
    },
    whenLive(timeoutMs) {
      if (state === 'live') return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (ok: boolean): void => {
          clearTimeout(timer);
          liveWaiters.delete(wake);
          resolve(ok);
        };
        const wake = (): void => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        liveWaiters.add(wake);
      });
    },
  };
}

/**
 * How long a stream has been silent, counting only time this process was running. A check that
 * comes late (the event loop was blocked: CPU starvation, a long GC pause) adds at most twice its
 * period: the slots that arrived meanwhile are still unread in the socket, and the timers run
 * before the socket is read, so wall time alone would call a healthy stream stale the moment the
 * process wakes, and its resubscription would add load to a process already short of it.
 */
export interface StallClock {
  /** Silence so far, ms, as of the check at `now`; `lastSlotAtMs` is when a slot (a replayed one too) last arrived. */
  silentMs(now: number, lastSlotAtMs: number): number;
}

/** A clock for one subscription opened at `openedAt`, checked every `checkMs`. */
export function createStallClock(openedAt: number, checkMs: number): StallClock {
  let lastCheckAt = openedAt;
  let since = openedAt;
  let frozenMs = 0;
  return {
    silentMs(now, lastSlotAtMs) {
      if (lastSlotAtMs > since) {
        since = lastSlotAtMs;
        frozenMs = 0;
      }
      frozenMs += Math.max(0, now - lastCheckAt - 2 * checkMs);
      lastCheckAt = now;
      return now - since - frozenMs;
    },
  };
}

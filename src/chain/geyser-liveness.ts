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

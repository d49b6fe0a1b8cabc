/**
 * The wait of unhurried commits (journal-types.ts `CommitOptions`) for company: a batch made only
 * of commits no answer waits for (early answers' confirmations, which the Geyser stream delivers a
 * slot at a time, one update after another) waits up to UNHURRIED_GATHER_MS, so that the burst
 * shares one device write instead of taking one each; a hurried commit, a drain or the close ends
 * the wait at once.
 */

/** How long unhurried commits alone wait for company before their write, ms: a slot's confirmations stream in over a few. */
export const UNHURRIED_GATHER_MS = 25;

export interface Gather {
  /** Resolves after the gathering time, or at once when `hurry` is called. */
  wait(): Promise<void>;
  /** Ends the wait under way, if any. */
  hurry(): void;
}

/** Creates the wait (`ms` per wait). */
export function createGather(ms: number = UNHURRIED_GATHER_MS): Gather {
  let end: (() => void) | null = null;
  return {
    wait: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done(): void {
          clearTimeout(timer);
          end = null;
          resolve();
        }
        end = done;
      }),
    hurry: () => end?.(),
  };
}

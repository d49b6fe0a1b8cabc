/** A clock that moves only when a test moves it: milliseconds, for the `now` option of limiters and budgets. */
export function manualClock(start = 1_000) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

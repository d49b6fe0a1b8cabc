/**
 * The bounded part of the service's close: what did not close within its time is reported and
 * left to the process exit, so a hung upstream cannot hold a shutdown.
 */

/** How long close() waits for each upstream connection set (and the pool) once the ledger is closed, ms. */
export const UPSTREAM_CLOSE_MS = 3_000;

/** What close() could not finish within its time: nothing when every part closed. */
export interface CloseReport {
  readonly unclosed: readonly string[];
}

/** Null when `closing` settles within UPSTREAM_CLOSE_MS, else `what` (left to the process exit). */
export function closeWithin(what: string, closing: Promise<unknown>): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(what), UPSTREAM_CLOSE_MS);
    timer.unref();
  });
  return Promise.race([
    closing.then(
      () => null,
      () => null,
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}

/**
 * The marks that end an early answer's record once its outcome is written (pending-settlements.ts
 * `ended`), written in batches: one durable write per answer, made the moment it ended, was one
 * more commit per early answer beside the paid calls' own (each next paid call waited on it: the
 * service's p50 at one client 2.0 -> 2.8-3.4 ms, docs/benchmarks.md). A mark lost to a stop leaves the
 * record unresolved: the next start sees its outcome row and marks it then.
 */

/** How long ended answers' marks wait to be written together. */
export const EARLY_END_EVERY_MS = 1_000;

export interface EarlyEnds {
  /** Queues the mark of `key` (written within `everyMs`). */
  add(key: string): void;
  /** Writes the queued marks now (a stop). */
  flush(): Promise<void>;
}

/** Batches `mark` calls: every key queued within `everyMs` is marked in one go (their writes group-commit). */
export function createEarlyEnds(config: {
  readonly mark: (key: string) => Promise<void>;
  readonly fault: (what: string, err: unknown) => void;
  readonly everyMs?: number;
}): EarlyEnds {
  const everyMs = config.everyMs ?? EARLY_END_EVERY_MS;
  let queued = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const keys = [...queued];
    queued = new Set();
    const failed = (err: unknown) => config.fault('an early answer settled but its record not marked ended', err);
    await Promise.all(keys.map((key) => config.mark(key).catch(failed)));
  }
  return {
    add(key) {
      queued.add(key);
      if (timer) return;
      timer = setTimeout(() => void flush(), everyMs);
      timer.unref();
    },
    flush,
  };
}

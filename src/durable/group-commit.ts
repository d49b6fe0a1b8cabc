/**
 * Group commit: items queued while a flush runs, or within one event-loop turn, are made durable
 * together by the next flush (one write and one fsync for all of them), and each item's promise
 * resolves only once that flush returned. So N concurrent appends cost about one fsync, not N,
 * and nothing is acknowledged before it is on disk.
 */

export interface GroupCommitConfig<T> {
  /** Makes one batch durable, in queue order; a throw rejects every item of the batch with that error. */
  readonly flush: (batch: readonly T[]) => Promise<void>;
  /** false: one item per flush, in order (the reference a benchmark measures group commit against). Default true. */
  readonly grouped?: boolean;
}

/** Counters of a group commit. */
export interface GroupCommitStats {
  /** Items made durable. */
  items: number;
  /** Flushes that succeeded (each one write and one fsync). */
  commits: number;
  /** The largest batch one flush carried. */
  maxBatch: number;
}

export interface GroupCommit<T> {
  /** Queues `item`; resolves once the flush that carried it returned, rejects with its error. */
  add(item: T): Promise<void>;
  /** Resolves when nothing is queued or being flushed. */
  drain(): Promise<void>;
  stats(): Readonly<GroupCommitStats>;
}

interface Waiting<T> {
  readonly item: T;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/** A group commit over `config.flush`; flushes never overlap. */
export function createGroupCommit<T>(config: GroupCommitConfig<T>): GroupCommit<T> {
  const grouped = config.grouped ?? true;
  const stats: GroupCommitStats = { items: 0, commits: 0, maxBatch: 0 };
  let queue: Waiting<T>[] = [];
  let running: Promise<void> | null = null;

  async function run(): Promise<void> {
    // One turn first: setImmediate runs after the I/O phase that delivered concurrent requests,
    // so what they append joins the first batch instead of waiting for the second.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (queue.length > 0) {
      const batch = grouped ? queue : queue.slice(0, 1);
      queue = grouped ? [] : queue.slice(1);
      try {
        await config.flush(batch.map((w) => w.item));
      } catch (err) {
        for (const w of batch) w.reject(err);
        continue;
      }
      stats.items += batch.length;
      stats.commits += 1;
      stats.maxBatch = Math.max(stats.maxBatch, batch.length);
      for (const w of batch) w.resolve();
    }
  }

  function kick(): void {
    if (running) return;
    running = run().finally(() => {
      running = null;
      // An item queued between the end of the loop and this callback still gets flushed.
      if (queue.length > 0) kick();
    });
  }

  return {
    add(item) {
      const promise = new Promise<void>((resolve, reject) => queue.push({ item, resolve, reject }));
      kick();
      return promise;
    },
    drain: async () => {
      while (running) await running;
    },
    stats: () => ({ ...stats }),
  };
}

/**
 * Runs tasks one at a time per key, in arrival order, with a bound on how many may wait: a
 * payment channel's requests must be serialized (each voucher builds on the charge before it),
 * and a client that floods one channel gets a quick "busy" instead of an unbounded queue.
 */

export interface KeyedQueue {
  /** Runs `task` after the key's earlier tasks; null when `maxWaiting` tasks already wait for it. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> | null;
  /** Keys with a task running or waiting. */
  busyKeys(): number;
}

/** Creates a queue that lets at most `maxWaiting` tasks wait per key (beside the running one). */
export function createKeyedQueue(maxWaiting: number): KeyedQueue {
  const queues = new Map<string, { tail: Promise<unknown>; count: number }>();
  return {
    run(key, task) {
      let q = queues.get(key);
      if (q && q.count > maxWaiting) return null;
      if (!q) {
        q = { tail: Promise.resolve(), count: 0 };
        queues.set(key, q);
      }
      const entry = q;
      entry.count++;
      const result = entry.tail.then(task);
      entry.tail = result.then(
        () => undefined,
        () => undefined,
      );
      void entry.tail.then(() => {
        entry.count--;
        if (entry.count === 0 && queues.get(key) === entry) queues.delete(key);
      });
      return result;
    },
    busyKeys: () => queues.size,
  };
}

/**
 * At most one task per key at a time, and no queue: `run` is null while the key's task runs. The
 * channels' deposits, per payer: a payer's deposits on several channels at once each pass the
 * facilitator's balance read and simulation while the first is unmined, so every one would be
 * sent and all but one revert at our relayer's gas (docs/security.md).
 */
export function createOneAtATime(): { run<T>(key: string, task: () => Promise<T>): Promise<T> | null } {
  const running = new Set<string>();
  return {
    run(key, task) {
      if (running.has(key)) return null;
      running.add(key);
      return task().finally(() => running.delete(key));
    },
  };
}

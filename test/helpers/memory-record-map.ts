/**
 * The in-memory stand-in of src/x402/stores/durable-record-log.ts, the map under the payment stores: a
 * view the running process reads, and the durable copy a restart reads back. As in the file log,
 * a put shows in the view at once and is rolled back when its write fails (memory never holds what
 * a restart would not); the write can be failed or held at its fault point.
 */
import type { FaultPlan } from './fault-plan.ts';

export interface MemoryRecordMap<T> {
  get(key: string): T | undefined;
  /** `at` names the fault point of this write (default `<point>.put`). */
  put(key: string, value: T, at?: string): Promise<void>;
  remove(key: string, at?: string): Promise<void>;
  entries(): Array<[string, T]>;
  size(): number;
  /** What a restart reads back: the records whose writes completed. */
  readonly durable: Map<string, T>;
}

/** Opens the map over `durable` (fresh, or a stopped process's). */
export function createMemoryRecordMap<T>(faults: FaultPlan, point: string, durable = new Map<string, T>()): MemoryRecordMap<T> {
  const view = new Map(durable);
  return {
    get: (key) => view.get(key),
    async put(key, value, at = `${point}.put`) {
      const earlier = view.get(key);
      view.set(key, value);
      try {
        await faults.at(at);
      } catch (err) {
        if (view.get(key) === value) {
          if (earlier === undefined) view.delete(key);
          else view.set(key, earlier);
        }
        throw err;
      }
      durable.set(key, value);
    },
    async remove(key, at = `${point}.remove`) {
      if (!view.delete(key)) return;
      await faults.at(at);
      durable.delete(key);
    },
    entries: () => [...view],
    size: () => view.size,
    durable,
  };
}

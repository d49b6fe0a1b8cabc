/**
 * The early answers' book (src/x402/stores/early-book.ts) over rows in memory, each write failable or
 * holdable at `early.put`; `reopen` is what a restart reads back (the rows; what was in flight is
 * taken up again from the pending settlement records, as in the file store).
 */
import { createInstanceBook, type EarlyAnswerStore, type EarlyRow } from '../../src/x402/stores/early-book.ts';
import { createFaultPlan, type FaultPlan } from './fault-plan.ts';
import { createMemoryRecordMap } from './memory-record-map.ts';

export interface MemoryEarlyAnswerStore extends EarlyAnswerStore {
  reopen(): MemoryEarlyAnswerStore;
}

/** Creates the store. */
export function createMemoryEarlyAnswerStore(faults: FaultPlan = createFaultPlan(), durable = new Map<string, EarlyRow>()): MemoryEarlyAnswerStore {
  const map = createMemoryRecordMap<EarlyRow>(faults, 'early', durable);
  const book = createInstanceBook({
    rows: {
      get: (key) => map.get(key),
      entries: () => map.entries(),
      async putAll(rows) {
        for (const r of rows) await map.put(r.key, r.row);
      },
    },
  });
  return { ...book, reopen: () => createMemoryEarlyAnswerStore(faults, durable) };
}

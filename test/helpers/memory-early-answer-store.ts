/**
 * The early answers' outcomes and payer bars (src/x402/state/early-answer-store.ts) in memory, each
 * write failable or holdable at `early.put`; `reopen` is what a restart reads back.
 */
import type { EarlyAnswerStore, EarlyOutcome } from '../../src/x402/state/early-answer-store.ts';
import { createFaultPlan, type FaultPlan } from './fault-plan.ts';
import { createMemoryRecordMap } from './memory-record-map.ts';

type Row = EarlyOutcome | { readonly status: 'barred'; readonly untilMs: number };

export interface MemoryEarlyAnswerStore extends EarlyAnswerStore {
  reopen(): MemoryEarlyAnswerStore;
}

/** Creates the store. */
export function createMemoryEarlyAnswerStore(faults: FaultPlan = createFaultPlan(), durable = new Map<string, Row>()): MemoryEarlyAnswerStore {
  const map = createMemoryRecordMap<Row>(faults, 'early', durable);
  return {
    async outcome(key) {
      const row = map.get(`outcome:${key}`);
      return row && row.status !== 'barred' ? row : undefined;
    },
    settle: (key, outcome) => map.put(`outcome:${key}`, outcome),
    async barredUntil(payer) {
      const row = map.get(`bar:${payer}`);
      return row?.status === 'barred' ? row.untilMs : 0;
    },
    bar: (payer, untilMs) => map.put(`bar:${payer}`, { status: 'barred', untilMs }),
    reopen: () => createMemoryEarlyAnswerStore(faults, durable),
  };
}

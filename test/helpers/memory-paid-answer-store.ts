/**
 * The payment-identifier answers (src/x402/stores/paid-answer-store.ts) in memory. `shared: true` adds the
 * claim and release a store shared by several instances has (as pg-paid-answer-store.ts): an id
 * is claimed before its payment is processed, and a second claim of the same payment is `busy`.
 */
import { lookupOf, type IdClaim, type PaidAnswerStore, type StoredPaidAnswer } from '../../src/x402/stores/paid-answer-store.ts';
import { storableAnswer } from '../../src/x402/stores/pending-settlements.ts';
import { createFaultPlan, type FaultPlan } from './fault-plan.ts';
import { createMemoryRecordMap } from './memory-record-map.ts';

export interface MemoryPaidAnswerStore extends PaidAnswerStore {
  size(): number;
  reopen(): MemoryPaidAnswerStore;
}

export interface MemoryPaidAnswerStoreConfig {
  readonly faults?: FaultPlan;
  readonly shared?: boolean;
  readonly maxEntries?: number;
}

/** Creates the store; a write is failable or holdable at `answers.put`. */
export function createMemoryPaidAnswerStore(
  config: MemoryPaidAnswerStoreConfig = {},
  durable = new Map<string, StoredPaidAnswer>(),
  claims = new Map<string, string>(),
): MemoryPaidAnswerStore {
  const faults = config.faults ?? createFaultPlan();
  const max = config.maxEntries ?? Number.POSITIVE_INFINITY;
  const map = createMemoryRecordMap<StoredPaidAnswer>(faults, 'answers', durable);
  const store: MemoryPaidAnswerStore = {
    lookup: (id, fingerprint) => lookupOf(map.get(id), fingerprint),
    remember: (id, fingerprint, reply) => map.put(id, { fingerprint, answer: storableAnswer(reply) }).finally(() => claims.delete(id)),
    full: () => map.size() >= max,
    size: () => map.size(),
    // Claims are the shared store's: a restart of one instance does not drop them.
    reopen: () => createMemoryPaidAnswerStore(config, durable, claims),
  };
  if (!config.shared) return store;
  return {
    ...store,
    async claim(id, fingerprint): Promise<IdClaim> {
      const found = lookupOf(map.get(id), fingerprint);
      if (found.kind !== 'miss') return found;
      const held = claims.get(id);
      if (held !== undefined) return held === fingerprint ? { kind: 'busy' } : { kind: 'conflict' };
      claims.set(id, fingerprint);
      return { kind: 'acquired' };
    },
    async release(id, fingerprint) {
      if (claims.get(id) === fingerprint) claims.delete(id);
    },
  };
}

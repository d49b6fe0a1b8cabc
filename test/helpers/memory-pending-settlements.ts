/**
 * The pending settlement records (src/x402/stores/pending-settlements.ts) in memory: the same contract
 * (refused when full for a new key, `keepDelivered` only onto a record, early records listed),
 * with each write failable or holdable at `pending.record`, `pending.keepDelivered` and
 * `pending.resolve`. `reopen` is what a
 * restarted process reads back.
 */
import { noRecordToKeep, paymentsFull, type PendingSettlement, type PendingSettlements, storableAnswer } from '../../src/x402/stores/pending-settlements.ts';
import { createFaultPlan, type FaultPlan } from './fault-plan.ts';
import { createMemoryRecordMap } from './memory-record-map.ts';

export interface MemoryPendingSettlements extends PendingSettlements {
  get(key: string): PendingSettlement | undefined;
  /** Every record written, in order (rewrites included). */
  readonly writes: ReadonlyArray<readonly [string, PendingSettlement]>;
  size(): number;
  reopen(): MemoryPendingSettlements;
}

/** Creates the store; at `maxEntries` records new settlements are refused (503 payments_full). */
export function createMemoryPendingSettlements(
  config: { readonly faults?: FaultPlan; readonly maxEntries?: number } = {},
  durable = new Map<string, PendingSettlement>(),
): MemoryPendingSettlements {
  const faults = config.faults ?? createFaultPlan();
  const max = config.maxEntries ?? Number.POSITIVE_INFINITY;
  const map = createMemoryRecordMap<PendingSettlement>(faults, 'pending', durable);
  const writes: Array<readonly [string, PendingSettlement]> = [];
  const put = (key: string, record: PendingSettlement, at: string): Promise<void> => {
    writes.push([key, record]);
    return map.put(key, record, at);
  };
  return {
    get: (key) => map.get(key),
    record(key, pending) {
      if (map.get(key) === undefined && map.size() >= max) return Promise.reject(paymentsFull());
      return put(key, pending, 'pending.record');
    },
    resolve: (key) => map.remove(key, 'pending.resolve'),
    async keepDelivered(key, reply) {
      const record = map.get(key);
      if (!record) throw noRecordToKeep(key);
      await put(key, { ...record, delivered: storableAnswer(reply) }, 'pending.keepDelivered');
    },
    listEarly: () => Promise.resolve(map.entries().filter(([, r]) => r.early !== undefined && !r.early.ended)),
    async ended(key) {
      const record = map.get(key);
      if (record?.early && !record.early.ended) await put(key, { ...record, early: { ...record.early, ended: true } }, 'pending.ended');
    },
    full: () => map.size() >= max,
    writes,
    size: () => map.size(),
    reopen: () => createMemoryPendingSettlements(config, durable),
  };
}

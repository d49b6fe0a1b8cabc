/**
 * The replay guard (src/x402/stores/replay-guard.ts) in memory, with the same rules as the file record:
 * one concurrent claim wins, a settled key never does, `markSettled` makes the key settled and
 * drops the claim. What is settled is the durable part: `reopen` is the guard a restarted process
 * reads back (settled keys kept, claims of the process that stopped gone).
 */
import type { AcquireResult, ReplayGuard } from '../../src/x402/stores/replay-guard.ts';
import { createFaultPlan, type FaultPlan } from './fault-plan.ts';

export interface MemoryReplayGuard extends ReplayGuard {
  acquire(key: string): AcquireResult;
  /** Keys settled, in the order they were marked (a key marked twice appears twice). */
  readonly marked: readonly string[];
  isSettled(key: string): boolean;
  /** The guard a restart reads back from the same record. */
  reopen(): MemoryReplayGuard;
}

/** Creates the guard; `faults` scripts `replay.markSettled` failures and holds. */
export function createMemoryReplayGuard(faults: FaultPlan = createFaultPlan(), marked: string[] = []): MemoryReplayGuard {
  const settled = new Set(marked);
  const inFlight = new Set<string>();
  return {
    dir: null,
    acquire(key) {
      faults.check('replay.acquire');
      if (settled.has(key)) return 'settled';
      if (inFlight.has(key)) return 'in_flight';
      inFlight.add(key);
      return 'acquired';
    },
    release(key) {
      inFlight.delete(key);
    },
    async markSettled(key) {
      settled.add(key);
      inFlight.delete(key);
      // Settled in memory at once (as the file record): a write that fails loses only its durable copy.
      await faults.at('replay.markSettled');
      marked.push(key);
    },
    marked,
    isSettled: (key) => settled.has(key),
    reopen: () => createMemoryReplayGuard(faults, marked),
    close: () => Promise.resolve(),
  };
}

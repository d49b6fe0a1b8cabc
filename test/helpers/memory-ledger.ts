/**
 * The ledger's append (src/ledger/ledger.ts) in memory: drafts are sealed into entries by the real
 * `sealEntry` (slot, previous hash, receipt hash computed from the slot), so the receipts a real
 * issuer builds over it are the real thing. An append can be failed (the ledger refuses it, as a
 * closed or failed ledger does) or held at `ledger.append`. Writes attached to an entry are made
 * durable each on its own path once the entry is in, as the file ledger without a journal does.
 */
import { GENESIS_PREV_HASH, type LedgerEntry, sealEntry } from '../../src/ledger/ledger-entry.ts';
import { commitEachAlone } from '../../src/durable/staged-write.ts';
import { AttachedWritesError, type AppendResult, type Ledger } from '../../src/ledger/ledger.ts';
import { createFaultPlan, type FaultPlan } from './fault-plan.ts';

export interface MemoryLedger extends Pick<Ledger, 'append'> {
  readonly entries: readonly LedgerEntry[];
}

/** Creates an empty ledger; `time` stamps entries (a fixed time: nothing here reads the wall clock). */
export function createMemoryLedger(faults: FaultPlan = createFaultPlan(), time = new Date('2026-01-01T00:00:00Z')): MemoryLedger {
  const entries: LedgerEntry[] = [];
  return {
    entries,
    async append(draft, attach, first = []): Promise<AppendResult> {
      await faults.at('ledger.append');
      // What the entry depends on first, as the database ledger checks it before sealing: failed, no entry.
      await commitEachAlone(first);
      const slot = { index: entries.length, prevHash: entries.at(-1)?.entrySha256 ?? GENESIS_PREV_HASH };
      const { entry } = sealEntry(draft, slot, time);
      entries.push(entry);
      const result = { index: slot.index, entrySha256: entry.entrySha256, chainHead: entry.entrySha256, treeSize: entries.length };
      const staged = attach ? await attach(result).catch(() => []) : [];
      await commitEachAlone(staged).catch((err: unknown) => {
        throw new AttachedWritesError(result, err);
      });
      return result;
    },
  };
}

/**
 * The ledger's and the kill switch's part of `/health` and `/uptime` (docs/contract.md#free-endpoints): ledger head,
 * entry count, age of the newest entry and the kill-switch state. Cheap enough for every probe: the
 * head is cached per tree size by the ledger and the kill switch is a field read.
 */
import type { KillSwitch } from './kill-switch.ts';
import type { Ledger } from '../ledger/ledger.ts';

export interface TrustStatusConfig {
  readonly ledger: Pick<Ledger, 'head' | 'failure'>;
  readonly killSwitch: Pick<KillSwitch, 'state'>;
  /** Settled answers whose entries wait to be appended (ledger-backlog.ts); none when absent. */
  readonly backlog?: { size(): number };
  readonly now?: () => number;
}

/** The fields added to /health and /uptime. */
// A type alias (not an interface) so it fits createFreeRoutes' Record-typed statusExtras.
export type TrustStatus = {
  readonly ledger: {
    readonly chainHeadSha256: string;
    readonly merkleRootSha256: string;
    readonly entries: number;
    readonly lastEntryAt: string | null;
    /** Seconds since the newest entry, null while the ledger is empty. */
    readonly lastEntryAgeSeconds: number | null;
    /** False after a write or fsync failure: appends are refused until a restart. */
    readonly writable: boolean;
    /** Settled answers whose entries wait to be appended; paid calls stop while it is above 0. */
    readonly backlog: number;
  };
  readonly killSwitch: { readonly active: boolean; readonly since: string | null };
};

/** Returns the `statusExtras` function of createFreeRoutes. */
export function createTrustStatus(config: Readonly<TrustStatusConfig>): () => TrustStatus {
  const now = config.now ?? Date.now;
  return () => {
    const head = config.ledger.head();
    const ks = config.killSwitch.state();
    const age = head.lastAppendAt === null ? null : Math.max(0, Math.round((now() - Date.parse(head.lastAppendAt)) / 1000));
    return {
      ledger: {
        chainHeadSha256: head.chainHead,
        merkleRootSha256: head.merkleRoot,
        entries: head.treeSize,
        lastEntryAt: head.lastAppendAt,
        lastEntryAgeSeconds: age,
        writable: config.ledger.failure() === null,
        backlog: config.backlog?.size() ?? 0,
      },
      killSwitch: { active: ks.active, since: ks.since },
    };
  };
}

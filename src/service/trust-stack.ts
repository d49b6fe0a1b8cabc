/**
 * The trust side of the service: the ledger (a torn tail cut after a crash is reported), the kill
 * switch, the receipt issuer, and what /health shows of them. Either of the first two stops paid
 * calls: the operator's switch, or a ledger that can no longer record what a payment bought.
 */
import { join } from 'node:path';
import type { SignBytes } from '../tlog/checkpoint.ts';
import type { KillSwitch } from '../operations/kill-switch.ts';
import { createLedger, type Ledger } from '../ledger/ledger.ts';
import { createLedgerBacklog, type LedgerBacklog, withLedgerBacklog } from '../receipts/ledger-backlog.ts';
import { createPgLedger } from '../ledger/pg-ledger.ts';
import { createReceiptIssuer, type ReceiptIssuer } from '../receipts/receipt-issuer.ts';
import { createTrustStatus, type TrustStatus } from '../operations/trust-status.ts';
import { openKillSwitch, type Storage } from './storage.ts';

/** Where the trust files live and what the receipts say and are signed with. */
export interface TrustStackConfig {
  /** The ledger lives under it, and the kill switch unless `storage` is the database. */
  readonly dataDir: string;
  readonly storage: Storage;
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** Public base URL (known after listen). */
  readonly baseUrl: () => string;
  readonly publicKey: string;
  readonly sign: SignBytes;
}

/** Under the data dir: the copy an instance reads the shared ledger from (rebuilt at every start). */
export const LEDGER_VIEW_DIR = 'ledger-view';

/** The open trust side; the ledger is the caller's to close. */
export interface TrustStack {
  readonly ledger: Ledger;
  readonly killSwitch: KillSwitch;
  readonly receipts: ReceiptIssuer;
  /** Settled answers whose ledger entry waits to be appended (the caller closes it before the ledger). */
  readonly backlog: LedgerBacklog;
  /** The trust fields of /health. */
  readonly status: () => TrustStatus;
}

/**
 * A paid 200 must leave with its ledger entry on disk: once the ledger cannot write (a failed
 * write or fsync), paid calls stop before anyone pays, as they do under the kill switch.
 */
export function paidCallsStopped(
  killSwitch: Pick<KillSwitch, 'isActive'>,
  ledger: Pick<Ledger, 'failure'>,
  backlog: Pick<LedgerBacklog, 'size'> = { size: () => 0 },
): string | null {
  if (killSwitch.isActive()) return 'paid calls are stopped by the operator';
  // Settled answers wait for their entries: no new payment until the ledger has taken them.
  const waiting = backlog.size();
  if (waiting > 0) return `paid calls are stopped: ${waiting} settled answer(s) wait for their ledger entries; retry shortly`;
  const failure = ledger.failure();
  if (failure === null) return null;
  // The file ledger stays stopped until a restart; the database's comes back with the database.
  const after = /retrying/.test(failure) ? 'retry shortly' : 'restart after fixing the disk';
  return `paid calls are stopped: the ledger cannot record entries (${failure}); ${after}`;
}

/**
 * The ledger of `storage`: the WAL in `<dataDir>/ledger` (replayed), or the one the database
 * sequences for every instance, read through a copy in `<dataDir>/ledger-view`.
 */
export function openLedger(storage: Storage, dataDir: string): Promise<Ledger> {
  if (storage.database === null) return createLedger({ dir: join(dataDir, 'ledger'), ...(storage.journal ? { journal: storage.journal } : {}) });
  return createPgLedger({ db: storage.database, viewDir: join(dataDir, LEDGER_VIEW_DIR) });
}

/** Opens the ledger (replaying it), then the kill switch and the issuer. */
export async function openTrustStack(config: Readonly<TrustStackConfig>): Promise<TrustStack> {
  const ledger = await openLedger(config.storage, config.dataDir);
  if (ledger.openReport.tornTail) console.warn(`ledger: cut a torn tail after a crash (${JSON.stringify(ledger.openReport.tornTail)})`);
  const killSwitch = await openKillSwitch(config.storage, config.dataDir, ledger).catch(async (err: unknown) => {
    await ledger.close();
    throw err;
  });
  const issuer = createReceiptIssuer({
    ledger,
    service: config.serviceName,
    serviceVersion: config.serviceVersion,
    baseUrl: config.baseUrl,
    publicKey: config.publicKey,
    sign: config.sign,
  });
  const fault = (what: string, err: unknown) => console.error(`ledger: ${what}: ${err instanceof Error ? err.message : String(err)}`);
  const backlog = createLedgerBacklog({ dir: join(config.dataDir, 'ledger-backlog'), issue: issuer.issue, fault });
  // What waited before a restart is appended now, before any new payment (paidCallsStopped holds them off meanwhile).
  void backlog.drain();
  const receipts = withLedgerBacklog(issuer, backlog, fault);
  return { ledger, killSwitch, receipts, backlog, status: createTrustStatus({ ledger, killSwitch, backlog }) };
}

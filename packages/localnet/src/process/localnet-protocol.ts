/**
 * The messages between the service and its localnet process (Node's IPC channel, JSON): the
 * service starts the process, sends `start`, waits for `ready` (or `failed`), asks it to ready
 * the service's accounts with `prepare` once its data directory is accepted, and sends `close`
 * at shutdown. Progress lines come as `progress`. Plain data both ways.
 */
import type { LocalnetStateOptions } from '../state/localnet-persistence.ts';
import type { ServiceAccounts } from '../service-accounts.ts';
import type { LocalnetUpstreams } from '../localnet-upstreams.ts';

/** What the service chooses of the localnet it starts. */
export interface LocalnetProcessOptions {
  readonly host: string;
  readonly slotMs: number;
  readonly slotsPerEpoch: number;
  readonly seed: string;
  /** Most transactions of background traffic a slot (the localnet's default when absent). */
  readonly txsPerSlot?: number;
  readonly state?: LocalnetStateOptions;
  /** Where the world's snapshots are kept, when not with the state (several data dirs share one). */
  readonly worldSnapshotDir?: string;
}

/** The localnet's surfaces, as the service takes them (the accounts hook is a message). */
export type LocalnetProcessUpstreams = Omit<LocalnetUpstreams, 'prepareAccounts'>;

/** What the running localnet tells the service once it serves. */
export interface LocalnetReady {
  readonly type: 'ready';
  readonly upstreams: LocalnetProcessUpstreams;
  /** The loopback URL of each surface, by name (rpc, geyser, market, evm). */
  readonly urls: Readonly<Record<string, string>>;
  readonly stablecoinMint: string;
  /** Where the state is kept and whether a saved one was restored; null when none is kept. */
  readonly state: { readonly dir: string; readonly restored: boolean } | null;
}

export type ServiceMessage =
  | { readonly type: 'start'; readonly options: LocalnetProcessOptions }
  | { readonly type: 'prepare'; readonly accounts: ServiceAccounts }
  | { readonly type: 'close' };

export type LocalnetMessage =
  | LocalnetReady
  | { readonly type: 'progress'; readonly line: string }
  | { readonly type: 'prepared'; readonly error: string | null }
  | { readonly type: 'failed'; readonly message: string };

/**
 * The server's durable state of every payment channel: what it has charged, the latest voucher
 * the payer signed (the claim we can make), the mirrored on-chain accounting, and the last answer
 * (so the identical retry of a voucher gets its 200 again, not a second charge). Each change is
 * written and fsync'd before the answer that depends on it leaves: an accepted voucher survives
 * kill -9 the way a ledger entry does.
 */
import type { ChannelConfig } from '../chain/evm-channel-typed-data.ts';
import type { ChannelSnapshot } from './channel-facilitator.ts';
import { createDurableRecordLog } from './durable-record-log.ts';
import type { StoredAnswer } from './pending-settlements.ts';

/** How long an idle channel's record is kept, ms: far past the longest withdrawal delay (30 days). */
export const CHANNEL_RECORD_TTL_MS = 400 * 24 * 3600 * 1000;
/** Channels kept at most (the idle-longest go first). */
export const MAX_CHANNELS = 100_000;
const FILE = 'channels.log';

/** One channel as the server tracks it; amounts are decimal strings of token units. */
export interface ChannelRecord {
  readonly config: ChannelConfig;
  readonly payer: string;
  /** What this server has charged in total (`chargedCumulativeAmount`). */
  readonly charged: string;
  /** The latest voucher: its ceiling and signature ('' before the first voucher). */
  readonly signedMax: string;
  readonly signature: string;
  readonly onchain: ChannelSnapshot;
  /** When `onchain` was read, ms. */
  readonly syncedAt: number;
  readonly lastRequestAt: number;
  /** When the oldest unclaimed charge was made, ms (0 when everything charged is claimed). */
  readonly unclaimedSince: number;
  /** The 200 answered for the latest voucher and the resource it answered. */
  readonly last: { readonly resource: string; readonly answer: StoredAnswer } | null;
}

export interface ChannelStore {
  get(channelId: string): ChannelRecord | undefined;
  /** Resolves once the record is on disk. */
  put(channelId: string, record: ChannelRecord): Promise<void>;
  remove(channelId: string): Promise<void>;
  entries(): IterableIterator<[string, ChannelRecord]>;
  size(): number;
  flush(): Promise<void>;
}

/** What a channel owes us beyond what is claimed on chain, token units. */
export function unclaimedOf(record: ChannelRecord): bigint {
  const owed = BigInt(record.charged) - BigInt(record.onchain.totalClaimed);
  return owed > 0n ? owed : 0n;
}

/** Opens the channel log under `dir` (the data directory). */
export function createChannelStore(config: { readonly dir: string; readonly now?: () => number; readonly maxEntries?: number }): ChannelStore {
  const now = config.now ?? Date.now;
  const log = createDurableRecordLog<ChannelRecord>({ dir: config.dir, file: FILE, maxEntries: config.maxEntries ?? MAX_CHANNELS, now });
  return {
    get: (id) => log.get(id),
    put: (id, record) => log.put(id, record, now() + CHANNEL_RECORD_TTL_MS),
    remove: (id) => log.remove(id),
    entries: () => log.entries(),
    size: () => log.size(),
    flush: () => log.flush(),
  };
}

/**
 * The server's durable state of every payment channel: what it has charged, the latest voucher
 * the payer signed (the claim we can make), the mirrored on-chain accounting, and the last answer
 * (so the identical retry of a voucher gets its 200 again, not a second charge). Each change is
 * written and fsync'd before the answer that depends on it leaves: an accepted voucher survives
 * kill -9 the way a ledger entry does.
 *
 * Every record carries its revision: a write names the revision it was made from and does not
 * happen when the record moved on meanwhile (`ChannelConflictError`). One instance serializes a
 * channel's requests itself; with the database (pg-channel-store.ts) two instances serving one
 * channel at once are held apart this way, and the loser's voucher is refused, not charged twice.
 */
import type { ChannelConfig } from '../../chain/evm/evm-channel-typed-data.ts';
import type { ChannelSnapshot } from './channel-facilitator.ts';
import type { CommitJournal } from '../../durable/commit-journal.ts';
import type { StagedWrite } from '../../durable/staged-write.ts';
import { createDurableRecordLog } from '../stores/durable-record-log.ts';
import type { StoredAnswer } from '../stores/pending-settlements.ts';
import { type BoundedStore, createRecordShares, payerKey, type RecordOwners, recordsRefused, type ShareLimits } from '../stores/record-shares.ts';

/** How long a channel's last answer is kept for the identical retry, ms (as long as an exact payment's 200). */
export const CHANNEL_ANSWER_KEEP_MS = 10 * 60 * 1000;
/** How long an idle channel's record is kept, ms: far past the longest withdrawal delay (30 days). */
export const CHANNEL_RECORD_TTL_MS = 400 * 24 * 3600 * 1000;
/**
 * Default of --channels-max: channels held at once. Only a channel that owes nothing (all it was
 * charged is claimed on chain) and whose last answer's retry window is over may make room for a
 * new one; an owing channel is never dropped (it would restart from the on-chain totalClaimed and
 * could be spent again). With no such channel a new channel gets 503 `payments_full`.
 */
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
  /**
   * The highest voucher ceiling we sent on chain in a claim (its calldata makes the voucher public),
   * set before the claim goes out; absent before the first claim.
   */
  readonly published?: string;
  /** Set when a claim of this channel's voucher reverted on its own: no more calls are served on it. */
  readonly quarantined?: { readonly at: number; readonly reason: string };
  /** Set (ms) before a cooperative refund is sent on chain, cleared once it is done: no voucher meanwhile (channel-closed.ts). */
  readonly refunding?: { readonly at: number };
  /**
   * The 200 answered for the latest voucher and the resource it answered. `answer` null: that
   * voucher's charge is stored and its 200 not kept yet (or never, when the process stopped
   * between the two): its identical retry for that resource is answered again, not charged again.
   * `moved`: what a deposit's charge moved on chain (its transaction and amount), kept while the
   * answer is pending so the answer computed again names them; absent for a voucher.
   */
  readonly last: {
    readonly resource: string;
    readonly answer: StoredAnswer | null;
    readonly moved?: { readonly transaction: string; readonly amount: string };
  } | null;
  /** The revision this record was read at (0: not stored yet); the store writes it one higher. */
  readonly rev: number;
}

/** A write made from a revision that is no longer the stored one: another request changed the channel first. */
export class ChannelConflictError extends Error {
  constructor(channelId: string) {
    super(`channel ${channelId} changed while this request was served`);
    this.name = 'ChannelConflictError';
  }
}

/** What `/health` shows of the stored channels. */
export interface ChannelSummary {
  readonly open: number;
  readonly unclaimedUnits: string;
  readonly withdrawalsPending: number;
}

/** The channel records as the channel path uses them: this file's log, or the database (pg-channel-store.ts). */
export interface ChannelStore extends BoundedStore {
  get(channelId: string): ChannelRecord | undefined | Promise<ChannelRecord | undefined>;
  /**
   * Stores `record` as revision `record.rev + 1`; resolves once durable, rejects with
   * ChannelConflictError when `record.rev` is stale. `client` (the caller's address, memory only)
   * counts a new channel toward that address's share with its payer's (bounded stores).
   */
  put(channelId: string, record: ChannelRecord, client?: string): Promise<void>;
  /**
   * `put`, staged to ride in a paid call's commit: in memory now, durable with that commit (undone
   * if it fails). Throws ChannelConflictError, or payments_full for a new channel with no room.
   */
  stage?(channelId: string, record: ChannelRecord, client?: string): readonly StagedWrite[];
  /** Forgets the channel, if it is still at `record.rev`. */
  remove(channelId: string, record: ChannelRecord): Promise<void>;
  /** The channels that owe us (charged beyond what is claimed on chain), at most `limit`. */
  owing(limit: number): Promise<Array<[string, ChannelRecord]>>;
  /**
   * Channels whose kept last answer is from before `before` (ms), at most `limit`: the answers a
   * store holds in memory are let go once the retry window is over. A store that keeps them on
   * disk only (the database) lists none.
   */
  idleAnswers(before: number, limit: number): string[];
  summary(): ChannelSummary | Promise<ChannelSummary>;
  /** Waits for queued writes. */
  flush(): Promise<void>;
}

/** Times `updateChannel` tries again after losing to a concurrent write. */
const UPDATE_ATTEMPTS = 3;

/**
 * Applies `change` to the stored record of `id` (nothing when there is none), reading it again
 * when another request wrote it in between; rejects after UPDATE_ATTEMPTS lost races.
 */
export async function updateChannel(store: ChannelStore, id: string, change: (current: ChannelRecord) => ChannelRecord): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const current = await store.get(id);
    if (!current) return;
    try {
      return await store.put(id, change(current));
    } catch (err) {
      if (!(err instanceof ChannelConflictError) || attempt === UPDATE_ATTEMPTS) throw err;
    }
  }
}

/** What a channel owes us beyond what is claimed on chain, token units. */
export function unclaimedOf(record: ChannelRecord): bigint {
  const owed = BigInt(record.charged) - BigInt(record.onchain.totalClaimed);
  return owed > 0n ? owed : 0n;
}

/** Opens the channel log under `dir` (the data directory). */
export function createChannelStore(config: {
  readonly dir: string;
  readonly now?: () => number;
  readonly maxEntries?: number;
  /** Shares of the channels per payer and per client address (absent: the bound alone). */
  readonly shares?: ShareLimits;
  readonly journal?: CommitJournal;
}): ChannelStore {
  // maxEntries: where new channels stop (see MAX_CHANNELS); nothing owing is ever dropped.
  const now = config.now ?? Date.now;
  const log = createDurableRecordLog<ChannelRecord>({
    dir: config.dir,
    file: FILE,
    maxEntries: config.maxEntries ?? MAX_CHANNELS,
    now,
    ...(config.journal ? { journal: config.journal } : {}),
    ...(config.shares ? { shares: { counts: createRecordShares(config.shares), ownersOf: (r: ChannelRecord) => ({ payer: r.payer, client: '' }) } } : {}),
  });
  const check = (id: string, record: ChannelRecord) => {
    if ((log.get(id)?.rev ?? 0) !== record.rev) throw new ChannelConflictError(id);
  };
  /**
   * The first channel (idle-longest first) that may leave: owes nothing, its answer's retry window
   * over; at a share (`of`), only one of that payer's or that client's own.
   */
  const droppable = (of?: { readonly why: 'payer' | 'client'; readonly owners: RecordOwners }): string | undefined => {
    const before = now() - CHANNEL_ANSWER_KEEP_MS;
    const own = (id: string, r: ChannelRecord) =>
      !of || (of.why === 'payer' ? payerKey(r.payer) === payerKey(of.owners.payer) : log.owners(id)?.client === of.owners.client);
    for (const [id, r] of log.entries()) if (unclaimedOf(r) === 0n && r.lastRequestAt < before && own(id, r)) return id;
    return undefined;
  };
  /**
   * Room for a new channel of `owners`, made by dropping settled-and-claimed ones if need be (at
   * the bound any of them, at a share one of the owner's own; each `remove`d from memory at once);
   * throws payments_full when none may leave.
   */
  const makeRoom = (id: string, owners: RecordOwners, remove: (gone: string) => void): void => {
    if (log.get(id) !== undefined) return;
    for (let why = log.refusal(owners), tries = 0; why !== null; why = log.refusal(owners), tries++) {
      const gone = tries < 3 ? droppable(why === 'full' ? undefined : { why, owners }) : undefined;
      if (gone === undefined) throw recordsRefused(why);
      remove(gone);
    }
  };
  const ownersOf = (record: ChannelRecord, client = ''): RecordOwners => ({ payer: record.payer, client });
  return {
    get: (id) => log.get(id),
    async put(id, record, client) {
      check(id, record);
      const removals: Promise<void>[] = [];
      makeRoom(id, ownersOf(record, client), (gone) => removals.push(log.remove(gone)));
      await Promise.all(removals);
      check(id, record);
      await log.put(id, { ...record, rev: record.rev + 1 }, now() + CHANNEL_RECORD_TTL_MS, ownersOf(record, client));
    },
    stage(id, record, client) {
      check(id, record);
      const writes: StagedWrite[] = [];
      makeRoom(id, ownersOf(record, client), (gone) => writes.push(log.stageRemove(gone)));
      writes.push(log.stage(id, { ...record, rev: record.rev + 1 }, now() + CHANNEL_RECORD_TTL_MS, ownersOf(record, client)));
      return writes;
    },
    async remove(id, record) {
      check(id, record);
      await log.remove(id);
    },
    owing: async (limit) => [...log.entries()].filter(([, r]) => unclaimedOf(r) > 0n).slice(0, limit),
    idleAnswers(before, limit) {
      const ids: string[] = [];
      for (const [id, r] of log.entries()) {
        if (ids.length >= limit) break;
        if (r.last && r.lastRequestAt < before) ids.push(id);
      }
      return ids;
    },
    summary() {
      let unclaimed = 0n;
      let open = 0;
      let withdrawalsPending = 0;
      for (const [, r] of log.entries()) {
        open++;
        unclaimed += unclaimedOf(r);
        if (r.onchain.withdrawRequestedAt !== 0) withdrawalsPending++;
      }
      return { open, unclaimedUnits: unclaimed.toString(), withdrawalsPending };
    },
    full: () => log.full() && droppable() === undefined,
    refusal(owners) {
      const why = log.refusal(owners);
      return why === null || droppable(why === 'full' ? undefined : { why, owners }) !== undefined ? null : why;
    },
    flush: () => log.flush(),
  };
}

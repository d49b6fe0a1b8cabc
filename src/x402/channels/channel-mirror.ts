/**
 * Our mirror of a channel's on-chain accounting (balance, claimed, pending withdrawal, refund
 * nonce): the record of a channel first seen, and the read that keeps a voucher from being checked
 * against state older than the mirror's bound.
 */
import type { ChannelFacilitator, ChannelSnapshot } from './channel-facilitator.ts';
import type { ChannelPayload } from './channel-payload.ts';
import type { ChannelRecord, ChannelStore } from './channel-store.ts';

/** A channel we hold no record of, from its on-chain state: what is claimed is our baseline charge. */
export function freshRecord(p: ChannelPayload, onchain: ChannelSnapshot, now: number): ChannelRecord {
  const c = onchain.totalClaimed;
  return {
    config: p.channelConfig,
    payer: p.channelConfig.payer,
    charged: c,
    signedMax: c,
    signature: '',
    onchain,
    syncedAt: now,
    lastRequestAt: 0,
    unclaimedSince: 0,
    last: null,
    rev: 0,
  };
}

export interface FreshMirrorConfig {
  readonly store: ChannelStore;
  readonly facilitator: Pick<ChannelFacilitator, 'read'>;
  /** The mirror's freshness bound, ms. */
  readonly maxAgeMs: number;
  readonly now: () => number;
  readonly fault: (what: string, err: unknown) => void;
}

/**
 * The record with its mirror no older than the bound: read again, and stored, when it is (a
 * withdrawal seen here shows in /health even when the call is refused); null when the chain cannot
 * be read. Run inside the channel's queue.
 */
export function createFreshMirror(config: FreshMirrorConfig) {
  return async (id: string, rec: ChannelRecord): Promise<ChannelRecord | null> => {
    if (config.now() - rec.syncedAt < config.maxAgeMs) return rec;
    const onchain = await config.facilitator.read(id).catch(() => null);
    if (!onchain) return null;
    const next = { ...rec, onchain, syncedAt: config.now() };
    if (rec.rev === 0) return next;
    try {
      await config.store.put(id, next);
      return { ...next, rev: rec.rev + 1 };
    } catch (err) {
      // Unstored, the read still serves this call; a record moved on meanwhile refuses its charge at commit.
      config.fault(`channel ${id} state not refreshed`, err);
      return next;
    }
  };
}

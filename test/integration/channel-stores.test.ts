/**
 * The ChannelStore contract (src/x402/channels/channel-store.ts), one suite run against both
 * stores: the file log and PostgreSQL (pg-channel-store.ts). Each write names the revision it was
 * made from, so a voucher accepted from a stale read is refused, never charged twice. What only one
 * store does is tested beside it: the file log's bound and shares in
 * test/unit/x402/channel-store-bound.test.ts, the claimer on the file log in
 * test/unit/x402/channel-claimer.test.ts, two instances on the database in
 * test/integration/pg-one-commit.test.ts and test/integration/pg-channels.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { commitEachAlone } from '../../src/durable/staged-write.ts';
import { ChannelConflictError, type ChannelRecord, type ChannelStore, createChannelStore } from '../../src/x402/channels/channel-store.ts';
import { createPgChannelStore } from '../../src/x402/channels/pg-channel-store.ts';
import { oneAddressChannelConfig } from '../helpers/channel-config.ts';
import { STORE_KINDS, type StoreKind, type StoreOpeners, useStoreBackings } from '../helpers/store-backings.ts';

const backings = useStoreBackings('channel-stores');
const ADDRESS = '0x1111111111111111111111111111111111111111';
const T = 1_000_000;

const openers: StoreOpeners<ChannelStore> = {
  file: (dir, options) => createChannelStore({ dir, now: options.now ?? (() => T) }),
  postgres: (db, options) => createPgChannelStore({ db, now: options.now ?? (() => T) }),
};
/** A new place for one store's state, and how to open the store there (again: a restart, or another instance). */
const placeFor = (kind: StoreKind) => backings.place(kind, openers);

/** A channel charged `charged` units of which `claimed` are claimed on chain, not stored yet. */
function record(charged: number, claimed = 0, withdrawRequestedAt = 0): ChannelRecord {
  return {
    config: oneAddressChannelConfig(ADDRESS),
    payer: ADDRESS,
    charged: String(charged),
    signedMax: String(charged),
    signature: '0xsig',
    onchain: { balance: '1000000', totalClaimed: String(claimed), withdrawRequestedAt, refundNonce: '0' },
    syncedAt: T,
    lastRequestAt: T,
    unclaimedSince: charged > claimed ? T : 0,
    last: null,
    rev: 0,
  };
}

const stored = async (store: ChannelStore, id: string): Promise<ChannelRecord> => {
  const r = await store.get(id);
  if (!r) throw new Error(`channel ${id} is not stored`);
  return r;
};

describe.each(STORE_KINDS)('channel records (%s)', (kind) => {
  it('stores a record as its next revision, read again where the store is opened again', async () => {
    const open = placeFor(kind);
    const id = backings.unique('0x01');
    const store = open();
    expect(await store.get(id)).toBeUndefined();
    await store.put(id, record(3000));
    expect(await stored(store, id)).toMatchObject({ charged: '3000', signature: '0xsig', rev: 1 });
    const read = await stored(open(), id);
    expect(read).toEqual({ ...record(3000), rev: 1 });
    await store.put(id, { ...read, charged: '4000' });
    expect(await stored(open(), id)).toMatchObject({ charged: '4000', rev: 2 });
  });

  it('refuses a write made from a stale revision, and a second new channel of one id; the stored record stays', async () => {
    const store = placeFor(kind)();
    const id = backings.unique('0x01');
    await store.put(id, record(1000));
    const read = await stored(store, id);
    await store.put(id, { ...read, charged: '2000' });
    await expect(store.put(id, { ...read, charged: '3000' })).rejects.toThrow(ChannelConflictError);
    await expect(store.put(id, record(5000))).rejects.toThrow(ChannelConflictError);
    expect(await stored(store, id)).toMatchObject({ charged: '2000', rev: 2 });
  });

  it('removes a channel only at its stored revision', async () => {
    const open = placeFor(kind);
    const store = open();
    const id = backings.unique('0x01');
    await store.put(id, record(1000, 1000));
    const read = await stored(store, id);
    await store.put(id, { ...read, lastRequestAt: T + 1 });
    await expect(store.remove(id, read)).rejects.toThrow(ChannelConflictError);
    await store.remove(id, await stored(store, id));
    expect(await store.get(id)).toBeUndefined();
    expect(await open().get(id)).toBeUndefined();
  });

  it('a staged write is durable once committed, as its own write or in a paid call’s commit', async () => {
    const open = placeFor(kind);
    const store = open();
    const id = backings.unique('0x01');
    const writes = store.stage?.(id, record(2000));
    expect(writes).toBeDefined();
    await commitEachAlone(writes!);
    expect(await stored(open(), id)).toMatchObject({ charged: '2000', rev: 1 });
  });

  it('lists the channels that owe us and sums them for /health', async () => {
    const open = await backings.placeAlone(kind, openers);
    const store = open();
    expect(await store.summary()).toEqual({ open: 0, unclaimedUnits: '0', withdrawalsPending: 0 });
    await store.put('0x01', record(3000, 1000));
    await store.put('0x02', record(2000, 2000));
    await store.put('0x03', record(500, 0, T));
    expect((await store.owing(10)).map(([id, r]) => [id, r.charged])).toEqual([
      ['0x01', '3000'],
      ['0x03', '500'],
    ]);
    expect(await store.owing(1)).toHaveLength(1);
    expect(await open().summary()).toEqual({ open: 3, unclaimedUnits: '2500', withdrawalsPending: 1 });
  });
});

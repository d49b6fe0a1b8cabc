import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelConfig } from '../../../src/chain/evm/evm-channel-typed-data.ts';
import { CHANNEL_ANSWER_KEEP_MS, type ChannelRecord, createChannelStore } from '../../../src/x402/channels/channel-store.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'channels-bound-'));
  dirs.push(d);
  return d;
};

const T0 = 1_700_000_000_000;
function record(charged: string, claimed: string, lastRequestAt: number, payer = '0xp'): ChannelRecord {
  return {
    config: {} as ChannelConfig,
    payer,
    charged,
    signedMax: charged,
    signature: '0xs',
    onchain: { balance: '100000', totalClaimed: claimed, withdrawRequestedAt: 0, refundNonce: '0' },
    syncedAt: lastRequestAt,
    lastRequestAt,
    unclaimedSince: 0,
    last: null,
    rev: 0,
  };
}

describe('the channel log at its bound', () => {
  it('never drops a channel that owes us: a new channel is refused with payments_full', async () => {
    let now = T0;
    const store = createChannelStore({ dir: freshDir(), maxEntries: 1, now: () => now });
    await store.put('a', record('2000', '0', now));
    now += CHANNEL_ANSWER_KEEP_MS * 2;
    expect(store.full?.()).toBe(true);
    await expect(store.put('b', record('1000', '0', now))).rejects.toMatchObject({ code: 'payments_full' });
    expect((await store.get('a'))?.charged).toBe('2000');
  });

  it('makes room by dropping a fully claimed channel once its answer is past the retry window, not before', async () => {
    let now = T0;
    const store = createChannelStore({ dir: freshDir(), maxEntries: 1, now: () => now });
    await store.put('a', record('2000', '2000', now));
    now += CHANNEL_ANSWER_KEEP_MS - 1;
    await expect(store.put('b', record('1000', '0', now))).rejects.toMatchObject({ code: 'payments_full' });
    now += 2;
    expect(store.full?.()).toBe(false);
    await store.put('b', record('1000', '0', now));
    expect([await store.get('a'), (await store.get('b'))?.charged]).toEqual([undefined, '1000']);
  });
});

describe('the channel log’s shares (docs/security.md#money-state-no-payer-can-fill)', () => {
  const shares = { perPayer: 2, perClient: 3 };

  it('one payer holds at most its share of owing channels; another payer, and another address, still open theirs', async () => {
    const now = T0;
    const store = createChannelStore({ dir: freshDir(), maxEntries: 100, shares, now: () => now });
    await store.put('a1', record('1000', '0', now, '0xAA'), '10.0.0.1');
    await store.put('a2', record('1000', '0', now, '0xaa'), '10.0.0.2');
    // Before: the third channel of one payer was stored like any other, up to the store's bound.
    await expect(store.put('a3', record('1000', '0', now, '0xAa'), '10.0.0.3')).rejects.toMatchObject({ code: 'payments_full', details: { share: 'payer' } });
    expect(store.refusal?.({ payer: '0xaa', client: '10.0.0.3' })).toBe('payer');
    await store.put('b1', record('1000', '0', now, '0xbb'), '10.0.0.1');
    expect([(await store.get('a3')) ?? null, (await store.get('b1'))?.payer]).toEqual([null, '0xbb']);
  });

  it('one address holds at most its share, whatever payers it uses; staged writes are held to it too', async () => {
    const now = T0;
    const store = createChannelStore({ dir: freshDir(), maxEntries: 100, shares, now: () => now });
    for (const [id, payer] of [
      ['c1', '0x01'],
      ['c2', '0x02'],
      ['c3', '0x03'],
    ] as const)
      await store.put(id, record('1000', '0', now, payer), '10.0.1.1');
    expect(() => store.stage!('c4', record('1000', '0', now, '0x04'), '10.0.1.1')).toThrow(
      expect.objectContaining({ code: 'payments_full', details: { share: 'client' } }),
    );
    await store.put('c4', record('1000', '0', now, '0x04'), '10.0.1.2');
    // A channel of that address updated without naming it stays counted for it.
    await store.put('c1', { ...record('2000', '0', now, '0x01'), rev: 1 });
    expect(store.refusal?.({ payer: '0x05', client: '10.0.1.1' })).toBe('client');
  });

  it('at its share, a payer’s new channel takes the place of one of its own that owes nothing and is idle', async () => {
    let now = T0;
    const store = createChannelStore({ dir: freshDir(), maxEntries: 100, shares, now: () => now });
    await store.put('x', record('1000', '1000', now, '0xcc'));
    await store.put('y', record('1000', '0', now, '0xcc'));
    await store.put('z', record('1000', '1000', now, '0xdd'));
    now += CHANNEL_ANSWER_KEEP_MS + 1;
    await store.put('w', record('1000', '0', now, '0xcc'));
    // x (claimed, idle, its own) made room; y owes us and stays; another payer's idle channel is not touched.
    expect([(await store.get('x')) ?? null, (await store.get('y'))?.payer, (await store.get('z'))?.payer, (await store.get('w'))?.payer]).toEqual([
      null,
      '0xcc',
      '0xdd',
      '0xcc',
    ]);
  });
});

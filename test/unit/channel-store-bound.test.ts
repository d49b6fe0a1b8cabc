import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelConfig } from '../../src/chain/evm-channel-typed-data.ts';
import { CHANNEL_ANSWER_KEEP_MS, type ChannelRecord, createChannelStore } from '../../src/x402/channels/channel-store.ts';

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
function record(charged: string, claimed: string, lastRequestAt: number): ChannelRecord {
  return {
    config: {} as ChannelConfig,
    payer: '0xp',
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

/**
 * When the claimer claims: not before the threshold or the age; at once for a channel whose payer
 * started a timed withdrawal; every owing channel, 50 per transaction, then one sweep; a failed
 * claim leaves the records as they were and says why in the status. Over a real channel log and
 * a recording stand-in of the on-chain half.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createChannelClaimer } from '../../src/x402/channel-claimer.ts';
import type { ChannelFacilitator, ChannelSnapshot, ClaimEntry } from '../../src/x402/channel-facilitator.ts';
import { ChannelConflictError, type ChannelRecord, createChannelStore } from '../../src/x402/channel-store.ts';
import { createKeyedQueue } from '../../src/x402/keyed-queue.ts';
import type { PaymentRequirements } from '../../src/x402/x402-types.ts';
import { oneAddressChannelConfig } from '../helpers/channel-config.ts';

const ADDRESS = '0x1111111111111111111111111111111111111111';
const requirements: PaymentRequirements = {
  scheme: 'batch-settlement',
  network: 'eip155:8453',
  amount: '1000',
  asset: ADDRESS,
  payTo: ADDRESS,
  maxTimeoutSeconds: 60,
  extra: {},
};
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function record(charged: number, onchain: Partial<ChannelSnapshot> = {}, unclaimedSince = 1_000): ChannelRecord {
  const config = oneAddressChannelConfig(ADDRESS);
  const snapshot = { balance: '1000000', totalClaimed: '0', withdrawRequestedAt: 0, refundNonce: '0', ...onchain };
  return {
    config,
    payer: ADDRESS,
    charged: String(charged),
    signedMax: String(charged),
    signature: '0xsig',
    onchain: snapshot,
    syncedAt: 1_000,
    lastRequestAt: 1_000,
    unclaimedSince,
    last: null,
    rev: 0,
  };
}

function setup(options: { thresholdUnits?: bigint; claimFails?: boolean; now?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'claimer-'));
  dirs.push(dir);
  const now = () => options.now ?? 2_000;
  const store = createChannelStore({ dir, now });
  const claims: ClaimEntry[][] = [];
  let sweeps = 0;
  const facilitator = {
    read: async (id: string) => (store.get(id) as ChannelRecord).onchain,
    claim: async (rows: readonly ClaimEntry[]) => {
      claims.push([...rows]);
      return options.claimFails
        ? { ok: false as const, reason: 'invalid_batch_settlement_evm_claim_simulation_failed', message: 'reverted', transaction: '' }
        : { ok: true as const, transaction: '0xclaim' };
    },
    sweep: async () => {
      sweeps++;
      return { ok: true as const, transaction: '0xsweep', amount: '0' };
    },
  } as unknown as ChannelFacilitator;
  const claimer = createChannelClaimer({
    store,
    facilitator,
    queue: createKeyedQueue(8),
    requirements,
    thresholdUnits: options.thresholdUnits ?? 10_000n,
    maxAgeMs: 60_000,
    intervalMs: 1_000,
    watchMs: 60_000,
    fault: () => {},
    now,
  });
  return { store, claimer, claims, sweeps: () => sweeps };
}

describe('channel claimer', () => {
  it('waits below the threshold and the age, then claims every owing channel 50 per transaction and sweeps once', async () => {
    const { store, claimer, claims, sweeps } = setup({ thresholdUnits: 100_000n });
    for (let i = 0; i < 60; i++) await store.put(`0x${i.toString(16).padStart(64, '0')}`, record(1000));
    await store.put(`0x${'ff'.repeat(32)}`, record(0));
    await claimer.tick();
    expect(claims).toHaveLength(0);
    expect(claimer.status()).toMatchObject({ open: 61, unclaimedUnits: '60000', lastClaim: null });
    await claimer.tick(true);
    expect(claims.map((c) => c.length)).toEqual([50, 10]);
    expect(claims[0]![0]).toMatchObject({ voucher: { maxClaimableAmount: '1000' }, signature: '0xsig', totalClaimed: '1000' });
    expect(sweeps()).toBe(1);
    expect(claimer.status()).toMatchObject({ unclaimedUnits: '0', lastClaim: { channels: 10, units: '10000' }, lastError: null });
  });

  it('claims when the total reaches the threshold, or the oldest charge its age', async () => {
    const byTotal = setup({ thresholdUnits: 2_000n });
    await byTotal.store.put('0x01', record(1000));
    await byTotal.claimer.tick();
    expect(byTotal.claims).toHaveLength(0);
    await byTotal.store.put('0x02', record(1000));
    await byTotal.claimer.tick();
    expect(byTotal.claims).toHaveLength(1);
    const byAge = setup({ now: 61_001 });
    await byAge.store.put('0x01', record(1000, {}, 1_000));
    await byAge.claimer.tick();
    expect(byAge.claims).toHaveLength(1);
  });

  it('claims at once when a payer has started a timed withdrawal', async () => {
    const { store, claimer, claims } = setup();
    await store.put('0x01', record(1000, { withdrawRequestedAt: 1_700_000_000 }));
    await claimer.tick();
    expect(claims).toHaveLength(1);
    expect(claimer.status().withdrawalsPending).toBe(1);
  });

  it('leaves the records as they were when the claim fails, and says why', async () => {
    const { store, claimer, claims, sweeps } = setup({ claimFails: true });
    await store.put('0x01', record(1000));
    await claimer.tick(true);
    expect(claims).toHaveLength(1);
    expect(sweeps()).toBe(0);
    expect((store.get('0x01') as ChannelRecord).onchain.totalClaimed).toBe('0');
    expect(claimer.status()).toMatchObject({ unclaimedUnits: '1000', lastClaim: null, lastError: expect.stringContaining('claim_simulation_failed') });
  });

  it('lets go of a last answer once its retry window (10 minutes) is over, and keeps a recent one', async () => {
    const { store, claimer } = setup({ now: 1_000 + 10 * 60_000 + 1 });
    const answer = { resource: '/v1/epoch', answer: { status: 200, headers: {}, bodyBase64: '' } };
    await store.put('0x01', { ...record(0), last: answer, lastRequestAt: 1_000 });
    await store.put('0x02', { ...record(0), last: answer, lastRequestAt: 1_000 + 60_000 });
    await claimer.tick();
    expect((store.get('0x01') as ChannelRecord).last).toBeNull();
    expect((store.get('0x02') as ChannelRecord).last).toEqual(answer);
  });

  it('refuses a write made from a stale revision', async () => {
    const { store } = setup();
    await store.put('0x01', record(1000));
    const read = store.get('0x01') as ChannelRecord;
    await store.put('0x01', { ...read, charged: '2000' });
    await expect(store.put('0x01', { ...read, charged: '3000' })).rejects.toThrow(ChannelConflictError);
    expect(store.get('0x01')).toMatchObject({ charged: '2000', rev: 2 });
  });

  it('keeps channel records across a reopen of the log', async () => {
    const { store } = setup();
    await store.put('0x01', record(3000));
    const again = createChannelStore({ dir: dirs[0]!, now: () => 2_000 });
    expect(again.get('0x01')).toMatchObject({ charged: '3000', signature: '0xsig' });
  });
});

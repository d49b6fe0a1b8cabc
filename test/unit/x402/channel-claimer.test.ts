/**
 * When the claimer claims: not before the threshold or the age; at once for a channel whose payer
 * started a timed withdrawal; every owing channel, 50 per transaction, then one sweep; a claim
 * that cannot be asked leaves the records as they were and says why in the status; a batch that
 * reverts is bisected down to the channel at fault, which is quarantined while the rest are
 * claimed. (Revisions and a reopen of the log: test/integration/channel-stores.test.ts.) Over a real channel log and a recording stand-in of the on-chain half, whose claim
 * reverts when a row carries the signature `0xbad` (as the contract's does for one bad voucher).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createChannelClaimer } from '../../../src/x402/channels/channel-claimer.ts';
import type { ChannelFacilitator, ChannelSnapshot, ClaimEntry } from '../../../src/x402/channels/channel-facilitator.ts';
import { type ChannelRecord, createChannelStore } from '../../../src/x402/channels/channel-store.ts';
import { createKeyedQueue } from '../../../src/x402/channels/keyed-queue.ts';
import type { PaymentRequirements } from '../../../src/x402/types/x402-types.ts';
import { oneAddressChannelConfig } from '../../helpers/channel-config.ts';

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

function record(charged: number, onchain: Partial<ChannelSnapshot> = {}, unclaimedSince = 1_000, signature = '0xsig'): ChannelRecord {
  const config = oneAddressChannelConfig(ADDRESS);
  const snapshot = { balance: '1000000', totalClaimed: '0', withdrawRequestedAt: 0, refundNonce: '0', ...onchain };
  return {
    config,
    payer: ADDRESS,
    charged: String(charged),
    signedMax: String(charged),
    signature,
    onchain: snapshot,
    syncedAt: 1_000,
    lastRequestAt: 1_000,
    unclaimedSince,
    last: null,
    rev: 0,
  };
}

const REVERTED = { ok: false as const, reason: 'invalid_batch_settlement_evm_claim_simulation_failed', message: 'execution reverted', transaction: '' };
const RPC_DOWN = { ok: false as const, reason: 'invalid_batch_settlement_evm_claim_simulation_failed', message: 'HTTP request failed', transaction: '' };

function setup(options: { thresholdUnits?: bigint; rpcDown?: boolean; now?: number; duringClaim?: () => Promise<void> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'claimer-'));
  dirs.push(dir);
  const now = () => options.now ?? 2_000;
  const store = createChannelStore({ dir, now });
  const claims: ClaimEntry[][] = [];
  const publishedAtClaim: (string | undefined)[] = [];
  let sweeps = 0;
  const facilitator = {
    read: async (id: string) => (store.get(id) as ChannelRecord).onchain,
    claim: async (rows: readonly ClaimEntry[]) => {
      claims.push([...rows]);
      publishedAtClaim.push((store.get('0x01') as ChannelRecord | undefined)?.published);
      await options.duringClaim?.();
      if (options.rpcDown) return RPC_DOWN;
      return rows.some((r) => r.signature === '0xbad') ? REVERTED : { ok: true as const, transaction: '0xclaim' };
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
  return { store, claimer, claims, publishedAtClaim, sweeps: () => sweeps };
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

  it('leaves the records as they were when the claim cannot be asked (no revert: not bisected), and says why without the library message', async () => {
    const { store, claimer, claims, sweeps } = setup({ rpcDown: true });
    await store.put('0x01', record(1000));
    await store.put('0x02', record(1000));
    await claimer.tick(true);
    expect(claims.map((c) => c.length)).toEqual([2]);
    expect(sweeps()).toBe(0);
    expect(store.get('0x01') as ChannelRecord).toMatchObject({ onchain: { totalClaimed: '0' } });
    expect((store.get('0x01') as ChannelRecord).quarantined).toBeUndefined();
    const status = claimer.status();
    expect(status).toMatchObject({
      unclaimedUnits: '2000',
      lastClaim: null,
      lastError: expect.stringContaining('claim_simulation_failed'),
      quarantined: { count: 0 },
    });
    expect(status.lastError).not.toContain('HTTP');
  });

  it('bisects a reverting batch: the one channel at fault is quarantined, every other is claimed, one sweep', async () => {
    const { store, claimer, claims, sweeps } = setup();
    const id = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
    for (let i = 0; i < 60; i++) await store.put(id(i), record(1000, {}, 1_000, i === 37 ? '0xbad' : '0xsig'));
    await claimer.tick(true);
    // 50 rows fail, 25 and 25: the half with row 37 is split again (13 and 12, 6 and 6, ...) down to it; the last 10 at once.
    expect(claims.filter((c) => c.length === 1 && c[0]!.signature === '0xbad')).toHaveLength(1);
    expect(claims.at(-1)).toHaveLength(10);
    expect(sweeps()).toBe(1);
    for (let i = 0; i < 60; i++) {
      const r = store.get(id(i)) as ChannelRecord;
      if (i === 37)
        expect(r).toMatchObject({ onchain: { totalClaimed: '0' }, quarantined: { at: 2_000, reason: 'invalid_batch_settlement_evm_claim_simulation_failed' } });
      else expect(r).toMatchObject({ onchain: { totalClaimed: '1000' } });
    }
    const status = claimer.status();
    expect(status).toMatchObject({ unclaimedUnits: '1000', lastClaim: { transaction: '0xclaim' } });
    expect(status.quarantined).toEqual({
      count: 1,
      channels: [
        { channelId: id(37), since: new Date(2_000).toISOString(), reason: 'invalid_batch_settlement_evm_claim_simulation_failed', unclaimedUnits: '1000' },
      ],
    });
    // The quarantined channel is left out of later claims: no batch reverts on it again.
    await store.put(id(0), { ...(store.get(id(0)) as ChannelRecord), charged: '2000', signedMax: '2000' });
    const before = claims.length;
    await claimer.tick(true);
    expect(claims.slice(before).map((c) => c.map((r) => r.signature))).toEqual([['0xsig']]);
    expect(claimer.status().quarantined.count).toBe(1);
  });

  it("keeps the channel's claimed total when a refund claimed past the batch's row while it was sent (no phantom debt, no second claim)", async () => {
    // The batch read the channel at 3000; two more calls were charged and the payer's refund
    // (claim row at 5000, the rest back) landed and was recorded while the batch was in flight.
    const refunded = (r: ChannelRecord): ChannelRecord => ({
      ...r,
      charged: '5000',
      signedMax: '5000',
      onchain: { ...r.onchain, balance: '5000', totalClaimed: '5000' },
    });
    const { store, claimer, claims } = setup({ duringClaim: async () => store.put('0x01', refunded(store.get('0x01') as ChannelRecord)) });
    await store.put('0x01', record(3000));
    await claimer.tick(true);
    expect(store.get('0x01')).toMatchObject({ onchain: { totalClaimed: '5000' }, unclaimedSince: 0 });
    expect(claimer.status()).toMatchObject({ unclaimedUnits: '0' });
    await claimer.tick(true);
    expect(claims).toHaveLength(1);
  });

  it('marks a voucher published before the claim that makes it public goes out', async () => {
    const { store, claimer, publishedAtClaim } = setup();
    await store.put('0x01', record(3000));
    await claimer.tick(true);
    expect(publishedAtClaim).toEqual(['3000']);
    expect(store.get('0x01')).toMatchObject({ published: '3000', onchain: { totalClaimed: '3000' } });
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
});

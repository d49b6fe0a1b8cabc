import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDurableRecordLog } from '../../../src/x402/stores/durable-record-log.ts';
import { createPaidAnswerStore } from '../../../src/x402/stores/paid-answer-store.ts';
import { createPendingSettlements, type PendingSettlement, storableAnswer } from '../../../src/x402/stores/pending-settlements.ts';

/** A fixed clock for the logs: records put to expire a minute later are live throughout. */
const NOW_MS = 1_700_000_000_000;
const fixedNow = () => NOW_MS;
const IN_A_MINUTE = NOW_MS + 60_000;
const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'paystate-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('durable record log', () => {
  it('reads back what was put and not what was removed, after reopening', async () => {
    const dir = freshDir();
    const log = createDurableRecordLog<{ n: number }>({ dir, file: 'x.log', maxEntries: 10, now: fixedNow });
    await Promise.all([log.put('a', { n: 1 }, IN_A_MINUTE), log.put('b', { n: 2 }, IN_A_MINUTE)]);
    await log.put('a', { n: 3 }, IN_A_MINUTE);
    await log.remove('b');
    const again = createDurableRecordLog<{ n: number }>({ dir, file: 'x.log', maxEntries: 10, now: fixedNow });
    expect(again.get('a')).toEqual({ n: 3 });
    expect(again.get('b')).toBeUndefined();
    expect(again.size()).toBe(1);
  });

  it('never reads a torn last line as a record', async () => {
    const dir = freshDir();
    const log = createDurableRecordLog<string>({ dir, file: 'x.log', maxEntries: 10, now: fixedNow });
    await log.put('whole', 'yes', IN_A_MINUTE);
    appendFileSync(join(dir, 'x.log'), '{"k":"torn","x":99999999999999,"v":"ha');
    const again = createDurableRecordLog<string>({ dir, file: 'x.log', maxEntries: 10, now: fixedNow });
    expect(again.get('whole')).toBe('yes');
    expect(again.get('torn')).toBeUndefined();
    // The reopen rewrote the log without the torn piece.
    expect(readFileSync(join(dir, 'x.log'), 'utf8')).not.toContain('torn');
  });

  it('drops expired records in memory and on reopen', async () => {
    const dir = freshDir();
    let now = 1_000;
    const log = createDurableRecordLog<string>({ dir, file: 'x.log', maxEntries: 10, now: () => now });
    await log.put('short', 's', 2_000);
    await log.put('long', 'l', 10_000);
    now = 3_000;
    expect(log.get('short')).toBeUndefined();
    const again = createDurableRecordLog<string>({ dir, file: 'x.log', maxEntries: 10, now: () => now });
    expect([again.get('short'), again.get('long')]).toEqual([undefined, 'l']);
  });

  it('never drops a live record at its bound: full() turns true instead, and the file stays compact', async () => {
    const dir = freshDir();
    const log = createDurableRecordLog<number>({ dir, file: 'x.log', maxEntries: 3, now: fixedNow });
    for (let i = 0; i < 3; i++) await log.put(`k${i}`, i, IN_A_MINUTE);
    expect(log.full()).toBe(true);
    // Puts of calls already under way still land; nothing held is evicted for them.
    await log.put('k3', 3, IN_A_MINUTE);
    expect([log.get('k0'), log.get('k3'), log.size()]).toEqual([0, 3, 4]);
    for (let i = 0; i < 500; i++) await log.put('k0', i, IN_A_MINUTE);
    const lines = readFileSync(join(dir, 'x.log'), 'utf8').trim().split('\n').length;
    expect(lines).toBeLessThanOrEqual(2 * 64 + 1);
    const again = createDurableRecordLog<number>({ dir, file: 'x.log', maxEntries: 3, now: fixedNow });
    expect([again.size(), again.get('k0'), again.get('k1')]).toEqual([4, 499, 1]);
    await again.remove('k1');
    await again.remove('k2');
    expect(again.full()).toBe(false);
  });

  it('a pending-settlement store at its bound refuses a new settlement with payments_full, never the update of one it holds', async () => {
    const store = createPendingSettlements({ dir: freshDir(), maxEntries: 1, now: fixedNow });
    const record = {
      network: 'n',
      transaction: 't',
      payer: 'p',
      payloadSha256: 'h',
      answer: storableAnswer({ status: 200, body: 'a' }),
      paid: { originalUrl: '/', endpoint: '/', priceUsdcUnits: 1 },
      recordedAt: 0,
    };
    await store.record('a', record);
    await expect(store.record('b', record)).rejects.toMatchObject({ code: 'payments_full' });
    await store.keepDelivered('a', { status: 200, body: 'a' });
    expect(store.get('a')?.delivered).toBeDefined();
  });
});

describe('durable record log over time', () => {
  it('forgets expired records nobody asks for again, in memory and on disk', async () => {
    // As the service uses it: each record put, then put again (its 200 kept), never read back.
    const dir = freshDir();
    let now = 1_000_000;
    const ttl = 1_000;
    const log = createDurableRecordLog<number>({ dir, file: 'x.log', maxEntries: 10_000, now: () => now });
    for (let i = 0; i < 600; i++) {
      now += 10;
      await log.put(`k${i}`, i, now + ttl);
      await log.put(`k${i}`, -i, now + ttl);
    }
    // 1 s of records at one per 10 ms: about 100 live, not the 600 ever put.
    expect(log.size()).toBeLessThanOrEqual(101);
    expect(log.get('k599')).toBe(-599);
    const lines = readFileSync(join(dir, 'x.log'), 'utf8').trim().split('\n').length;
    expect(lines).toBeLessThanOrEqual(2 * 101 + 2);
    const again = createDurableRecordLog<number>({ dir, file: 'x.log', maxEntries: 10_000, now: () => now });
    expect(again.size()).toBe(log.size());
  });
});

describe('shares of the payment records (docs/security.md#money-state-no-payer-can-fill)', () => {
  const shares = { perPayer: 2, perClient: 3 };
  const recordOf = (payer: string): PendingSettlement => ({
    network: 'eip155:8453',
    transaction: '0xt',
    payer,
    payloadSha256: 'cd'.repeat(32),
    answer: storableAnswer({ status: 200, body: '{}' }),
    paid: { originalUrl: '/v1/epoch', endpoint: '/v1/epoch', priceUsdcUnits: 1000 },
    recordedAt: 1,
  });

  it('a new record past its payer’s or its address’s share is refused; an update of one held never is; a resolved one frees its place', async () => {
    const store = createPendingSettlements({ dir: freshDir(), shares, now: fixedNow });
    await store.record('k1', recordOf('0xAB'), '10.0.0.1');
    await store.record('k2', recordOf('0xab'), '10.0.0.2');
    await expect(store.record('k3', recordOf('0xAb'), '10.0.0.3')).rejects.toMatchObject({ code: 'payments_full', details: { share: 'payer' } });
    await store.record('k1', { ...recordOf('0xab'), transaction: '0xu' }, '10.0.0.1');
    await store.record('k4', recordOf('0xcd'), '10.0.0.1');
    await store.record('k6', recordOf('0x11'), '10.0.0.1');
    await expect(store.record('k5', recordOf('0xef'), '10.0.0.1')).rejects.toMatchObject({ code: 'payments_full', details: { share: 'client' } });
    await store.resolve('k1');
    await store.record('k5', recordOf('0xef'), '10.0.0.1');
    expect(store.refusal({ payer: '0x99', client: '10.0.0.9' })).toBeNull();
  });

  it('a staged record (an early answer’s, written in its admission’s commit) is held to the same shares as a recorded one', async () => {
    const store = createPendingSettlements({ dir: freshDir(), shares, now: fixedNow });
    await store.stageRecord('k1', recordOf('0xab'), '10.0.0.1').commitAlone();
    await store.record('k2', recordOf('0xAB'), '10.0.0.2');
    expect(() => store.stageRecord('k3', recordOf('0xab'), '10.0.0.3')).toThrow(
      expect.objectContaining({ code: 'payments_full', details: { share: 'payer' } }),
    );
    await store.stageRecord('k4', recordOf('0xcd'), '10.0.0.1').commitAlone();
    await store.stageRecord('k5', recordOf('0x11'), '10.0.0.1').commitAlone();
    expect(() => store.stageRecord('k6', recordOf('0xef'), '10.0.0.1')).toThrow(
      expect.objectContaining({ code: 'payments_full', details: { share: 'client' } }),
    );
    // Staged again (its rewrite at the broadcast), a record held is never refused.
    expect(() => store.stageRecord('k1', { ...recordOf('0xab'), transaction: '0xu' }, '10.0.0.1')).not.toThrow();
  });

  it('after a reopen the records count toward their payers (read from the record), not toward addresses (never written)', async () => {
    const dir = freshDir();
    const store = createPendingSettlements({ dir, shares, now: fixedNow });
    await store.record('k1', recordOf('0xab'), '10.0.0.1');
    await store.record('k2', recordOf('0xab'), '10.0.0.1');
    expect(readFileSync(join(dir, 'pending-settlements.log'), 'utf8')).not.toContain('10.0.0.1');
    const again = createPendingSettlements({ dir, shares, now: fixedNow });
    expect(again.refusal({ payer: '0xAB', client: '' })).toBe('payer');
    expect(again.refusal({ payer: '0xcd', client: '10.0.0.1' })).toBeNull();
  });

  it('payment-identifier answers keep their payer on disk and are held to the same shares', async () => {
    const dir = freshDir();
    const ids = createPaidAnswerStore({ dir, shares, now: fixedNow });
    await ids.remember('id-a', 'fp', { status: 200, body: 'a' }, { payer: '0xab', client: '10.0.0.1' });
    await ids.remember('id-b', 'fp', { status: 200, body: 'b' }, { payer: '0xab', client: '10.0.0.1' });
    expect(ids.refusal({ payer: '0xab', client: '' })).toBe('payer');
    expect(createPaidAnswerStore({ dir, shares, now: fixedNow }).refusal({ payer: '0xAB', client: '' })).toBe('payer');
  });
});

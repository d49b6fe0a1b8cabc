/**
 * The PendingSettlements contract (src/x402/stores/pending-settlements.ts), one suite run against
 * both stores: the file log and PostgreSQL (pg-pending-settlements.ts). What only one of them does
 * is tested beside it: the file log's bound in test/unit/x402/durable-payment-state.test.ts, the
 * database's expiry sweep in test/integration/pg-storage.test.ts (what it spares: here).
 */
import { describe, expect, it } from 'vitest';
import { startExpirySweeper } from '../../src/postgres/expiry-sweeper.ts';
import { createPgPendingSettlements } from '../../src/x402/stores/pg-pending-settlements.ts';
import {
  createPendingSettlements,
  type PendingSettlement,
  type PendingSettlements,
  replyOf,
  storableAnswer,
} from '../../src/x402/stores/pending-settlements.ts';
import type { PaymentPayload } from '../../src/x402/types/x402-types.ts';
import { STORE_KINDS, type StoreKind, useStoreBackings } from '../helpers/store-backings.ts';

const backings = useStoreBackings('pending-settlement-stores');

/** A new place for one store's state, and how to open the store there (again: a restart, or another instance). */
const placeFor = (kind: StoreKind) =>
  backings.place<PendingSettlements>(kind, {
    file: (dir, options) => createPendingSettlements({ dir, ...options }),
    postgres: (db, options) => createPgPendingSettlements({ db, ...options }),
  });

const RECORD: PendingSettlement = {
  network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  transaction: '5sig',
  payer: 'payer',
  payloadSha256: 'ab'.repeat(32),
  answer: storableAnswer({ status: 200, headers: { 'Content-Type': 'application/json', 'X-B': '1', 'X-A': '2' }, body: '{"a":"ü"}' }),
  paid: { originalUrl: '/v1/epoch?rate=both', endpoint: '/v1/epoch', priceUsdcUnits: 1000 },
  recordedAt: 1,
};

describe.each(STORE_KINDS)('pending settlements (%s)', (kind) => {
  it('keeps a settlement with its answer byte for byte (headers in order) where it is opened again, until resolved', async () => {
    const open = placeFor(kind);
    const key = backings.unique('svm:p');
    await open().record(key, RECORD);
    const again = open();
    const found = await again.get(key);
    expect(found).toEqual(RECORD);
    expect(Object.keys(found!.answer.headers)).toEqual(['Content-Type', 'X-B', 'X-A']);
    expect(Buffer.from(replyOf(found!.answer).body).toString('utf8')).toBe('{"a":"ü"}');
    await again.resolve(key);
    expect(await open().get(key)).toBeUndefined();
  });

  it('keeps the answer as delivered with the record, and refuses it for a settlement it does not hold', async () => {
    const open = placeFor(kind);
    const store = open();
    const key = backings.unique('svm:d');
    await expect(store.keepDelivered(key, { status: 200, body: 'x' })).rejects.toThrow(/no settlement record/);
    await store.record(key, RECORD);
    await store.keepDelivered(key, { status: 200, headers: { 'PAYMENT-RESPONSE': 'pr', 'Content-Type': 'application/json' }, body: '{"a":1}' });
    const kept = await open().get(key);
    expect(kept?.delivered).toEqual({ status: 200, headers: { 'PAYMENT-RESPONSE': 'pr', 'Content-Type': 'application/json' }, body: '{"a":1}' });
  });

  it('reads an expired record as absent', async () => {
    let now = 5_000;
    const store = placeFor(kind)({ ttlMs: 100, now: () => now });
    const key = backings.unique('svm:old');
    await store.record(key, RECORD);
    now += 99;
    expect(await store.get(key)).toEqual(RECORD);
    now += 1;
    expect(await store.get(key)).toBeUndefined();
  });

  it('keeps an early answer whose outcome is unknown whatever its age (a restart, the sweep), then lets it expire once ended', async () => {
    let now = 5_000;
    const open = placeFor(kind);
    const store = open({ ttlMs: 100, now: () => now });
    const [early, undelivered, plain] = ['svm:e', 'svm:u', 'svm:n'].map((k) => backings.unique(k)) as [string, string, string];
    const earlyRecord: PendingSettlement = { ...RECORD, early: { payment: { x402Version: 2 } as unknown as PaymentPayload } };
    for (const key of [early, undelivered]) await store.record(key, earlyRecord);
    await store.record(plain, RECORD);
    await store.keepDelivered(early, { status: 200, headers: {}, body: 'x' });
    // A stop ten thousand times the records' lifetime (ten minutes in the service: days here).
    now += 1_000_000;
    // The instance still running (a follow stuck past the lifetime) keeps it too.
    expect((await store.listEarly()).map(([k]) => k)).toContain(early);
    const sweeper = kind === 'postgres' ? startExpirySweeper({ db: backings.db(), now: () => now, intervalMs: 3_600_000 }) : null;
    await sweeper?.sweep();
    sweeper?.close();
    const restarted = open({ ttlMs: 100, now: () => now });
    const listed = (await restarted.listEarly()).filter(([k]) => [early, undelivered, plain].includes(k));
    expect(listed.map(([k]) => k)).toEqual([early]);
    expect(listed[0]![1].delivered).toEqual({ status: 200, headers: {}, body: 'x' });
    // Only the answer that left is money state: the others keep their lifetime.
    expect(await restarted.get(undelivered)).toBeUndefined();
    expect(await restarted.get(plain)).toBeUndefined();
    // Its outcome written: one more lifetime for the identical retry, then gone like any record.
    await restarted.ended(early);
    expect((await open({ ttlMs: 100, now: () => now }).get(early))?.early?.ended).toBe(true);
    expect((await restarted.listEarly()).map(([k]) => k)).not.toContain(early);
    now += 100;
    expect(await open({ ttlMs: 100, now: () => now }).get(early)).toBeUndefined();
  });
});

/**
 * The PendingSettlements contract (src/x402/stores/pending-settlements.ts), one suite run against
 * both stores: the file log and PostgreSQL (pg-pending-settlements.ts). What only one of them does
 * is tested beside it: the file log's bound in test/unit/x402/durable-payment-state.test.ts, the
 * database's expiry sweep in test/integration/pg-storage.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createPgPendingSettlements } from '../../src/x402/stores/pg-pending-settlements.ts';
import {
  createPendingSettlements,
  type PendingSettlement,
  type PendingSettlements,
  replyOf,
  storableAnswer,
} from '../../src/x402/stores/pending-settlements.ts';
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
});

/**
 * The PaidAnswerStore contract (src/x402/stores/paid-answer-store.ts: the answers kept by payment
 * identifier), one suite run against both stores: the file log and PostgreSQL
 * (pg-paid-answer-store.ts). The database's claims between instances are in
 * test/integration/pg-storage.test.ts. Both keep the first answer of an id while it lives (the file
 * store used to replace it with a second one: a retry under the id could then be answered
 * differently from its first answer).
 */
import { describe, expect, it } from 'vitest';
import { createPaidAnswerStore, type PaidAnswerStore } from '../../src/x402/stores/paid-answer-store.ts';
import { createPgPaidAnswerStore } from '../../src/x402/stores/pg-paid-answer-store.ts';
import { STORE_KINDS, type StoreKind, useStoreBackings } from '../helpers/store-backings.ts';

const backings = useStoreBackings('paid-answer-stores');

/** A new place for one store's state, and how to open the store there (again: a restart, or another instance). */
const placeFor = (kind: StoreKind) =>
  backings.place<PaidAnswerStore>(kind, {
    file: (dir, options) => createPaidAnswerStore({ dir, ...options }),
    postgres: (db, options) => createPgPaidAnswerStore({ db, ...options }),
  });

describe.each(STORE_KINDS)('paid answers by payment identifier (%s)', (kind) => {
  it('hit for the same fingerprint where it is opened again, conflict for another, miss for another id', async () => {
    const open = placeFor(kind);
    const id = backings.unique('id-0123456789abcdef');
    const first = open();
    expect((await first.lookup(id, 'fp1')).kind).toBe('miss');
    await first.remember(id, 'fp1', { status: 200, headers: { 'PAYMENT-RESPONSE': 'x' }, body: 'body' });
    const again = open();
    const hit = await again.lookup(id, 'fp1');
    expect(hit.kind).toBe('hit');
    if (hit.kind === 'hit')
      expect([hit.reply.status, hit.reply.headers, Buffer.from(hit.reply.body).toString()]).toEqual([200, { 'PAYMENT-RESPONSE': 'x' }, 'body']);
    expect((await again.lookup(id, 'fp2')).kind).toBe('conflict');
    expect((await again.lookup(backings.unique('another-id-0123456789'), 'fp1')).kind).toBe('miss');
  });

  it('forgets an answer after its TTL', async () => {
    let now = 10_000;
    const store = placeFor(kind)({ ttlMs: 1000, now: () => now });
    const id = backings.unique('id-0123456789abcdef');
    await store.remember(id, 'fp', { status: 200, body: 'b' });
    now += 999;
    expect((await store.lookup(id, 'fp')).kind).toBe('hit');
    now += 1;
    expect((await store.lookup(id, 'fp')).kind).toBe('miss');
  });

  it('keeps the first answer of an id while it lives: a second one, of another payment or the same, does not replace it', async () => {
    const open = placeFor(kind);
    const id = backings.unique('id-0123456789abcdef');
    const store = open();
    await store.remember(id, 'fp1', { status: 200, headers: { 'PAYMENT-RESPONSE': 'x' }, body: 'body' });
    await store.remember(id, 'fp2', { status: 200, body: 'other' });
    await store.remember(id, 'fp1', { status: 200, body: 'later' });
    for (const s of [store, open()]) {
      const kept = await s.lookup(id, 'fp1');
      expect(kept.kind === 'hit' && Buffer.from(kept.reply.body).toString()).toBe('body');
      expect((await s.lookup(id, 'fp2')).kind).toBe('conflict');
    }
  });
});

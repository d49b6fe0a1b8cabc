/**
 * The ReplayGuard contract (src/x402/stores/replay-guard.ts), one suite run against both stores:
 * the file record and PostgreSQL (pg-replay-guard.ts). What only one of them does is tested beside
 * it: the file's rotation, bound and torn line in test/unit/x402/replay-guard.test.ts, the database's
 * races between instances and claim lease in test/integration/pg-storage.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createPgReplayGuard } from '../../src/x402/stores/pg-replay-guard.ts';
import { createReplayGuard, type ReplayGuard } from '../../src/x402/stores/replay-guard.ts';
import { STORE_KINDS, type StoreKind, useStoreBackings } from '../helpers/store-backings.ts';

const backings = useStoreBackings('replay-guard-stores');

/** A new place for one store's state, and how to open the store there (again: a restart, or another instance). */
const placeFor = (kind: StoreKind) =>
  backings.place<ReplayGuard>(kind, {
    file: (dir, options) => createReplayGuard({ dir, ...options }),
    postgres: (db, options) => createPgReplayGuard({ db, ...options }),
  });

describe.each(STORE_KINDS)('replay guard (%s)', (kind) => {
  it('lets one of many concurrent claims through and gives a released claim back', async () => {
    const g = placeFor(kind)();
    const key = backings.unique('svm:race');
    const claims = await Promise.all([g.acquire(key), g.acquire(key), g.acquire(key)]);
    expect(claims.sort()).toEqual(['acquired', 'in_flight', 'in_flight']);
    await g.release(key);
    expect(await g.acquire(key)).toBe('acquired');
    await g.close();
  });

  it('refuses a settled key, also once opened again, and a release does not free it', async () => {
    const open = placeFor(kind);
    const g = open();
    const key = backings.unique('svm:abc');
    expect(await g.acquire(key)).toBe('acquired');
    await g.markSettled(key);
    expect(await g.acquire(key)).toBe('settled');
    await g.release(key);
    expect(await g.acquire(key)).toBe('settled');
    await g.close();
    const again = open();
    expect(await again.acquire(key)).toBe('settled');
    expect(await again.acquire(backings.unique('svm:other'))).toBe('acquired');
    await again.close();
  });

  it('refuses a settled key for its TTL, and lets it be claimed after', async () => {
    let now = 1_000_000;
    const open = placeFor(kind);
    const g = open({ ttlMs: 1000, now: () => now });
    const key = backings.unique('evm:ttl');
    await g.markSettled(key);
    now += 999;
    expect(await g.acquire(key)).toBe('settled');
    now += 2;
    expect(await g.acquire(key)).toBe('acquired');
    await g.close();
  });
});

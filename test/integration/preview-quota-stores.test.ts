/**
 * The PreviewQuota contract (src/preview/preview-quota.ts: one free preview per client per UTC
 * day), one suite run against both quotas on a pinned clock: the file in the data directory and
 * PostgreSQL (pg-preview-quota.ts), each in a place of its own. What only one of them does is
 * tested beside it: the day's file, its salt, a torn line and a failed write in
 * test/unit/preview/preview-quota.test.ts; instances sharing the database, a claim's lease and the database
 * away in test/integration/pg-preview.test.ts. A release reaches the database after it returns, so
 * what follows a release is polled. The suite found that the file quota refused a client after
 * midnight while its claim of the day before still ran, where the database holds each day's claim
 * on its own; the quota is per client per day, so the file quota now keys its running claims by day.
 */
import { describe, expect, it } from 'vitest';
import { openPgPreviewQuota } from '../../src/preview/pg-preview-quota.ts';
import { type HeldClaim, openPreviewQuota, type PreviewQuota, type RefusedClaim } from '../../src/preview/preview-quota.ts';
import { STORE_KINDS, type StoreKind, useStoreBackings } from '../helpers/store-backings.ts';

const backings = useStoreBackings('preview-quota-stores');

/** A quota of `kind` in a new place, on a clock the test moves. */
async function quotaAt(kind: StoreKind, iso: string, maxClientsPerDay?: number) {
  const clock = { now: new Date(iso) };
  const now = () => clock.now;
  const open = await backings.placeAlone<Promise<PreviewQuota>>(kind, {
    file: async (dir) => openPreviewQuota({ dir, maxClientsPerDay, now }),
    postgres: (db) => openPgPreviewQuota({ db, maxClientsPerDay, now }),
  });
  return { quota: await open(), clock };
}

const held = async (q: PreviewQuota, ip: string): Promise<HeldClaim> => {
  const c = await q.claim(ip);
  if (!c.ok) throw new Error(`expected a claim for ${ip}, got ${c.reason}`);
  return c;
};
const refused = async (q: PreviewQuota, ip: string): Promise<RefusedClaim> => {
  const c = await q.claim(ip);
  if (c.ok) throw new Error(`expected ${ip} to be refused`);
  return c;
};
const use = async (q: PreviewQuota, ip: string) => (await held(q, ip)).commit();
/** The next claim of `ip` once a release has reached the store: held. */
const heldAfterRelease = async (q: PreviewQuota, ip: string): Promise<HeldClaim> => {
  let claim: HeldClaim | undefined;
  await expect
    .poll(async () => {
      const c = await q.claim(ip);
      if (c.ok) claim = c;
      return c.ok ? 'held' : c.reason;
    })
    .toBe('held');
  return claim!;
};

describe.each(STORE_KINDS)('the preview quota (%s)', (kind) => {
  it('one claim at a time per client; a release gives it back, a commit uses the day', async () => {
    const { quota } = await quotaAt(kind, '2026-11-24T10:00:00Z');
    const first = await held(quota, '203.0.113.9');
    expect((await refused(quota, '203.0.113.9')).reason).toBe('in_flight');
    expect(quota.size()).toBe(1);
    first.release();
    first.release();
    await expect.poll(() => quota.size()).toBe(0);
    const second = await heldAfterRelease(quota, '203.0.113.9');
    await second.commit();
    await expect(second.commit()).rejects.toThrow(/already ended/);
    second.release();
    const r = await refused(quota, '203.0.113.9');
    expect(r).toMatchObject({ reason: 'used', retryAfterSeconds: 14 * 3600 });
    expect(r.nextPreviewAt.toISOString()).toBe('2026-11-25T00:00:00.000Z');
    // The same client through a dual-stack listener is the same client; another client is not.
    expect((await refused(quota, '::ffff:203.0.113.9')).reason).toBe('used');
    await use(quota, '203.0.113.10');
    expect(quota.size()).toBe(2);
    await quota.close();
  });

  it('an IPv6 client is its /64: any host of a used /64 is refused, the next /64 is not', async () => {
    const { quota } = await quotaAt(kind, '2026-11-24T10:00:00Z');
    await use(quota, '2001:db8:1:2::1');
    expect((await refused(quota, '2001:db8:1:2:ffff:ffff:ffff:fffe')).reason).toBe('used');
    await use(quota, '2001:db8:1:3::1');
    await quota.close();
  });

  it('the day rolls over at UTC midnight on the injected clock; a clock stepping back reopens nothing', async () => {
    const { quota, clock } = await quotaAt(kind, '2026-11-24T23:59:30Z');
    await use(quota, '198.51.100.7');
    expect((await refused(quota, '198.51.100.7')).retryAfterSeconds).toBe(30);
    clock.now = new Date('2026-11-24T23:59:59Z');
    expect((await refused(quota, '198.51.100.7')).retryAfterSeconds).toBe(1);
    clock.now = new Date('2026-11-25T00:00:00Z');
    await use(quota, '198.51.100.7');
    const r = await refused(quota, '198.51.100.7');
    expect(r.retryAfterSeconds).toBe(86_400);
    expect(r.nextPreviewAt.toISOString()).toBe('2026-11-26T00:00:00.000Z');
    clock.now = new Date('2026-11-24T23:59:59Z');
    expect((await refused(quota, '198.51.100.7')).reason).toBe('used');
    await quota.close();
  });

  it('a claim belongs to its day: one still running after midnight neither holds nor uses the new day', async () => {
    const { quota, clock } = await quotaAt(kind, '2026-11-24T23:59:59Z', 1);
    const claim = await held(quota, '198.51.100.8');
    clock.now = new Date('2026-11-25T00:00:01Z');
    expect(quota.size()).toBe(0);
    const today = await held(quota, '198.51.100.8');
    await claim.commit();
    expect((await refused(quota, '198.51.100.8')).reason).toBe('in_flight');
    await today.commit();
    expect((await refused(quota, '198.51.100.8')).reason).toBe('used');
    expect((await refused(quota, '198.51.100.9')).reason).toBe('capacity');
    await quota.close();
  });

  it('the daily capacity counts recorded and running claims; it frees at midnight', async () => {
    const { quota, clock } = await quotaAt(kind, '2026-11-24T08:00:00Z', 2);
    await use(quota, '192.0.2.1');
    const running = await held(quota, '192.0.2.2');
    const r = await refused(quota, '192.0.2.3');
    expect(r).toMatchObject({ reason: 'capacity', retryAfterSeconds: 16 * 3600 });
    expect((await refused(quota, '192.0.2.1')).reason).toBe('used');
    running.release();
    await (await heldAfterRelease(quota, '192.0.2.3')).commit();
    expect((await refused(quota, '192.0.2.4')).reason).toBe('capacity');
    expect(quota.size()).toBe(2);
    clock.now = new Date('2026-11-25T00:00:00Z');
    expect(quota.size()).toBe(0);
    await use(quota, '192.0.2.4');
    expect(quota.size()).toBe(1);
    await quota.close();
  });
});

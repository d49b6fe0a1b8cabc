/**
 * The free preview's daily file quota with an injected clock: client keys (IPv4, IPv6 by /64,
 * IPv4-mapped IPv6), Retry-After math, and durability: a reopened quota keeps
 * today's records and drops other days', a torn last line is never read, the file holds salted
 * hashes only, and a failed write is reported. Claims (one at a time, the day rolling over, the
 * capacity) are the quota contract's, run on the file and the database alike in
 * test/integration/preview-quota-stores.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.ts';
import { clientKeyOf, SALT_FILE } from '../../../src/preview/client-key.ts';
import {
  nextUtcMidnight,
  openPreviewQuota,
  QUOTA_FILE,
  secondsToNextUtcMidnight,
  utcDayOf,
  type HeldClaim,
  type FilePreviewQuota as PreviewQuota,
  type RefusedClaim,
} from '../../../src/preview/preview-quota.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'preview-quota-'));
  dirs.push(d);
  return join(d, 'preview');
}

/** A quota under `dir` on a clock the test moves. */
function quotaAt(dir: string, iso: string, maxClientsPerDay?: number) {
  const clock = { now: new Date(iso) };
  const quota = openPreviewQuota({ dir, maxClientsPerDay, now: () => clock.now });
  return { quota, clock };
}

const held = (q: PreviewQuota, ip: string): HeldClaim => {
  const c = q.claim(ip);
  if (!c.ok) throw new Error(`expected a claim for ${ip}, got ${c.reason}`);
  return c;
};
const refused = (q: PreviewQuota, ip: string): RefusedClaim => {
  const c = q.claim(ip);
  if (c.ok) throw new Error(`expected ${ip} to be refused`);
  return c;
};
const use = (q: PreviewQuota, ip: string) => held(q, ip).commit();

describe('UTC day and Retry-After', () => {
  it.each([
    ['2026-11-24T00:00:00.000Z', 86_400, '2026-11-25T00:00:00.000Z'],
    ['2026-11-24T00:00:00.001Z', 86_400, '2026-11-25T00:00:00.000Z'],
    ['2026-11-24T12:00:00.500Z', 43_200, '2026-11-25T00:00:00.000Z'],
    ['2026-11-24T23:59:30.000Z', 30, '2026-11-25T00:00:00.000Z'],
    ['2026-11-24T23:59:59.000Z', 1, '2026-11-25T00:00:00.000Z'],
    ['2026-11-24T23:59:59.999Z', 1, '2026-11-25T00:00:00.000Z'],
    ['2026-12-31T23:00:00.000Z', 3_600, '2027-01-01T00:00:00.000Z'],
  ])('at %s: Retry-After %i, next preview at %s', (iso, seconds, next) => {
    expect(secondsToNextUtcMidnight(new Date(iso))).toBe(seconds);
    expect(nextUtcMidnight(new Date(iso)).toISOString()).toBe(next);
    expect(utcDayOf(new Date(iso))).toBe(iso.slice(0, 10));
  });
});

describe('client keys', () => {
  it.each([
    ['127.0.0.1', 'ipv4:127.0.0.1'],
    ['0000:0000:0000:0000:0000:ffff:7f00:0001', 'ipv4:127.0.0.1'],
    ['::ffff:127.0.0.1', 'ipv4:127.0.0.1'],
    ['::ffff:203.0.113.9', 'ipv4:203.0.113.9'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', 'ipv6:0:0:0:0::/64'],
    ['::1', 'ipv6:0:0:0:0::/64'],
    ['2001:db8:1:2::1', 'ipv6:2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', 'ipv6:2001:db8:1:2::/64'],
    ['2001:DB8:1:2:aaaa:bbbb:1.2.3.4', 'ipv6:2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', 'ipv6:2001:db8:1:3::/64'],
    ['fe80::1%eth0', 'ipv6:fe80:0:0:0::/64'],
    ['2001:db8::', 'ipv6:2001:db8:0:0::/64'],
    ['not an address', 'other:not an address'],
  ])('%s -> %s', (ip, key) => {
    expect(clientKeyOf(ip)).toBe(key);
  });
});

describe('durability', () => {
  it("a reopened quota keeps today's records and drops yesterday's; the file holds salted hashes only", async () => {
    const dir = tempDir();
    const a = quotaAt(dir, '2026-11-24T10:00:00Z');
    await Promise.all([use(a.quota, '203.0.113.9'), use(a.quota, '2001:db8:1:2::1')]);
    await a.quota.close();
    const text = readFileSync(join(dir, QUOTA_FILE), 'utf8');
    expect(text).toMatch(/^(2026-11-24 [A-Za-z0-9_-]{22}\n){2}$/);
    expect(text).not.toMatch(/203|2001|db8|ipv/);
    expect(statSync(join(dir, SALT_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, QUOTA_FILE)).mode & 0o777).toBe(0o600);

    const b = quotaAt(dir, '2026-11-24T20:00:00Z');
    expect(refused(b.quota, '203.0.113.9').reason).toBe('used');
    expect(refused(b.quota, '2001:db8:1:2::99').reason).toBe('used');
    await use(b.quota, '203.0.113.10');
    await b.quota.close();
    expect(readFileSync(join(dir, QUOTA_FILE), 'utf8').split('\n')).toHaveLength(4);

    const c = quotaAt(dir, '2026-11-25T00:00:00Z');
    expect(readFileSync(join(dir, QUOTA_FILE), 'utf8')).toBe('');
    await use(c.quota, '203.0.113.9');
    await c.quota.close();
  });

  it('the first record of a new day starts the file afresh without a restart', async () => {
    const dir = tempDir();
    const { quota, clock } = quotaAt(dir, '2026-11-24T23:00:00Z');
    await use(quota, '203.0.113.1');
    clock.now = new Date('2026-11-25T01:00:00Z');
    await use(quota, '203.0.113.2');
    expect(readFileSync(join(dir, QUOTA_FILE), 'utf8')).toMatch(/^2026-11-25 [A-Za-z0-9_-]{22}\n$/);
    await quota.close();
  });

  it('a torn last line and malformed lines are never read as records', async () => {
    const dir = tempDir();
    const a = quotaAt(dir, '2026-11-24T10:00:00Z');
    await use(a.quota, '203.0.113.9');
    await use(a.quota, '203.0.113.10');
    await a.quota.close();
    const lines = readFileSync(join(dir, QUOTA_FILE), 'utf8').split('\n');
    // The second record torn by a crash mid-append, after a line of junk.
    writeFileSync(join(dir, QUOTA_FILE), `${lines[0]}\ngarbage\n2026-11-24 short\n${lines[1]!.slice(0, -1)}`);
    const b = quotaAt(dir, '2026-11-24T11:00:00Z');
    expect(refused(b.quota, '203.0.113.9').reason).toBe('used');
    await use(b.quota, '203.0.113.10');
    await b.quota.close();
    expect(readFileSync(join(dir, QUOTA_FILE), 'utf8').split('\n')).toHaveLength(3);
  });

  it('the salt is kept across restarts, differs between data dirs, and a damaged salt stops start-up', async () => {
    const [d1, d2] = [tempDir(), tempDir()];
    for (const d of [d1, d2]) {
      const { quota } = quotaAt(d, '2026-11-24T10:00:00Z');
      await use(quota, '203.0.113.9');
      await quota.close();
    }
    expect(readFileSync(join(d1, QUOTA_FILE), 'utf8')).not.toBe(readFileSync(join(d2, QUOTA_FILE), 'utf8'));
    const salt = readFileSync(join(d1, SALT_FILE), 'utf8');
    quotaAt(d1, '2026-11-24T11:00:00Z');
    expect(readFileSync(join(d1, SALT_FILE), 'utf8')).toBe(salt);
    writeFileSync(join(d1, SALT_FILE), 'not hex\n');
    expect(() => quotaAt(d1, '2026-11-24T11:00:00Z')).toThrow(ConfigError);
  });

  it('a failed write rejects the commit, releases the claim and is reported', async () => {
    const dir = tempDir();
    const { quota } = quotaAt(dir, '2026-11-24T10:00:00Z');
    rmSync(dir, { recursive: true, force: true });
    await expect(use(quota, '203.0.113.9')).rejects.toThrow();
    expect(quota.failure()).toMatch(/preview quota file cannot be written/);
    expect(quota.size()).toBe(0);
    await expect(use(quota, '203.0.113.10')).rejects.toThrow();
    await quota.close();
  });
});

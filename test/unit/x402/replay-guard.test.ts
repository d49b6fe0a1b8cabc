import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReplayGuard } from '../../../src/x402/stores/replay-guard.ts';

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'replay-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * What only the file record does: it rotates its files and stays bounded, and skips a torn line.
 * The contract both stores keep is test/integration/replay-guard-stores.test.ts.
 */
describe('replay guard: the file record', () => {
  it('forgets keys after the TTL, rotates files and stays bounded', async () => {
    const dir = freshDir();
    let now = 1_000_000;
    const g = createReplayGuard({ dir, ttlMs: 1000, now: () => now });
    await Promise.all(['k1', 'k2', 'k3'].map((k) => g.markSettled(k)));
    expect(g.size()).toBe(3);
    now += 1500;
    expect(g.acquire('k1')).toBe('acquired');
    await g.markSettled('k4');
    // The append after a TTL rotated the files and pruned k1-k3: left are k4 (settled) and the k1 claim.
    expect(g.size()).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(['replay-keys.current', 'replay-keys.previous']);
    await g.close();
    now += 5000;
    const later = createReplayGuard({ dir, ttlMs: 1000, now: () => now });
    expect(later.size()).toBe(0);
    await later.close();
  });

  it('skips a torn last line written by a crash', async () => {
    const dir = freshDir();
    const g = createReplayGuard({ dir });
    await g.markSettled('good');
    await g.close();
    appendFileSync(join(dir, 'replay-keys.current'), '99999999999999 to');
    const again = createReplayGuard({ dir });
    expect(again.acquire('good')).toBe('settled');
    expect(again.acquire('to')).toBe('acquired');
    await again.close();
  });
});

/**
 * A rename, a new file or a new directory lives only in memory until its directory is fsync'd:
 * a crash can bring the old file back (and lose every record appended to the new one) or lose
 * the new file whole. Every file store is driven through its own API over a recording node:fs
 * (test/helpers/fs-recorder.ts), and each directory entry it made must have been followed by an
 * fsync of its directory before the operation's promise resolved (or the start returned).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { entriesMade, events, unsyncedEntries } from '../../helpers/fs-recorder.ts';
import { replaceFile } from '../../../src/durable/atomic-replace.ts';
import { openLineLog } from '../../../src/durable/line-log.ts';
import { loadOrCreateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import { resolveAdminToken } from '../../../src/operations/admin-token.ts';
import { createClientHasher } from '../../../src/preview/client-key.ts';
import { openDayClaimLog } from '../../../src/preview/day-claim-log.ts';
import { loadOrCreateIdentity } from '../../../src/receipts/identity.ts';
import { createKillSwitch } from '../../../src/operations/kill-switch.ts';
import { createLedger } from '../../../src/ledger/ledger.ts';
import { createLedgerBacklog } from '../../../src/receipts/ledger-backlog.ts';
import { createDurableRecordLog } from '../../../src/x402/stores/durable-record-log.ts';
import { createReplayGuard } from '../../../src/x402/stores/replay-guard.ts';

vi.mock('node:fs', async (orig) => (await import('../../helpers/fs-recorder.ts')).recordingFs(await orig()));
vi.mock('node:fs/promises', async (orig) => (await import('../../helpers/fs-recorder.ts')).recordingFsPromises(await orig()));

let root = '';
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dir-fsync-'));
  events.length = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Every entry made so far was made durable, and there were some. */
function expectAllSynced(): void {
  expect(entriesMade()).toBeGreaterThan(0);
  expect(unsyncedEntries()).toEqual([]);
}

describe('directory fsync after every rename and new file, before the promise resolves', () => {
  it('the recorder finds a rename left unsynced (the check can fail)', async () => {
    const { renameSync, writeFileSync } = await import('node:fs');
    writeFileSync(join(root, 'a.tmp'), 'x');
    renameSync(join(root, 'a.tmp'), join(root, 'a'));
    expect(unsyncedEntries()).toEqual([`rename ${join(root, 'a.tmp')} -> ${join(root, 'a')} without an fsync of ${root}`]);
  });

  it('atomic replace and the line log', async () => {
    await replaceFile(join(root, 'state.json'), '{}\n');
    const log = openLineLog<string>({ path: join(root, 'x.log'), flush: (lines, file) => file.append(lines.join('')) });
    await log.add('a\n');
    expectAllSynced();
  });

  it('the replay guard: its files at start and the rotation after a TTL', async () => {
    let now = 1_000;
    const guard = createReplayGuard({ dir: join(root, 'replay'), ttlMs: 100, now: () => now });
    await guard.markSettled('svm:a');
    now += 200;
    await guard.markSettled('svm:b');
    expect(events.some((e) => e.op === 'rename')).toBe(true);
    expectAllSynced();
    await guard.close();
  });

  it('the durable record log (pending settlements, paid answers, channels): compaction at start and while serving', async () => {
    const dir = join(root, 'records');
    await createDurableRecordLog<number>({ dir, file: 'x.log', maxEntries: 1000, now: () => 0 }).put('a', 1, 60_000);
    const log = createDurableRecordLog<number>({ dir, file: 'x.log', maxEntries: 1000, now: () => 0 });
    for (let i = 0; i < 200; i++) await log.put('same', i, 60_000);
    expect(events.filter((e) => e.op === 'rename').length).toBeGreaterThan(2);
    expectAllSynced();
  });

  it('the preview day claim log: the rewrite at open and the first write of a new day', async () => {
    const dir = join(root, 'preview');
    const hash = 'A'.repeat(22);
    const first = openDayClaimLog({ dir, file: 'quota.log', day: '2026-11-24' });
    await first.append('2026-11-24', hash);
    await first.append('2026-11-25', hash);
    await first.close();
    const again = openDayClaimLog({ dir, file: 'quota.log', day: '2026-11-25' });
    expect(again.loaded).toEqual(new Set([hash]));
    expectAllSynced();
    await again.close();
  });

  it('the ledger backlog: its file, made at the first record', async () => {
    const backlog = createLedgerBacklog({ dir: join(root, 'backlog'), issue: () => Promise.reject(new Error('not now')), retryMs: 60_000 });
    await backlog.add({ originalUrl: '/v1/epoch', endpoint: '/v1/epoch', priceUsdcUnits: 1000, network: 'eip155:8453', body: '{}' });
    expectAllSynced();
    await backlog.close();
  });

  it('the kill switch state and the ledger WAL', async () => {
    const ledger = await createLedger({ dir: join(root, 'ledger'), nodeStore: 'memory' });
    const kill = createKillSwitch({ dataDir: root, ledger });
    await kill.activate('test');
    expectAllSynced();
    await ledger.close();
  });

  it('the keys made at the first start: the identity, the admin token, an EVM key', () => {
    loadOrCreateIdentity(join(root, 'identity.json'));
    resolveAdminToken(null, root);
    loadOrCreateEvmKey(join(root, 'evm-payto.key'));
    expect(events.filter((e) => e.op === 'create').length).toBeGreaterThanOrEqual(3);
    expectAllSynced();
  });

  it('the preview salt, in a directory of its own', () => {
    createClientHasher(join(root, 'preview'));
    expectAllSynced();
  });
});

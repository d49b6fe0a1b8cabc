import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/errors.ts';
import { entryHash, type LedgerEntry } from '../../../src/ledger/ledger-entry.ts';
import { NODE_WAL_IO, type WalIo } from '../../../src/ledger/ledger-wal.ts';
import { WAL_FILE_NAME } from '../../../src/ledger/ledger-durable-state.ts';
import { createLedger, type Ledger, type LedgerConfig } from '../../../src/ledger/ledger.ts';
import { verifyInclusionSpec } from '../../../src/ledger/merkle-verify.ts';
import { createTrustStatus } from '../../../src/operations/trust-status.ts';
import { acksUntilKilled } from '../../helpers/test-support.ts';
import { AUDIT_DRAFT, paymentDraft, verifyChain } from '../../helpers/ledger-drafts.ts';

const root = mkdtempSync(join(tmpdir(), 'ledger-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = (): string => join(root, `l${dirCount++}`);

async function filled(n: number, config: Partial<LedgerConfig> = {}): Promise<{ ledger: Ledger; dir: string }> {
  const dir = config.dir ?? freshDir();
  const ledger = await createLedger({ ...config, dir });
  await Promise.all(Array.from({ length: n }, (_, i) => ledger.append(i % 10 === 9 ? AUDIT_DRAFT : paymentDraft(i))));
  return { ledger, dir };
}

const walPath = (dir: string): string => join(dir, WAL_FILE_NAME);

async function openError(dir: string): Promise<ServiceError> {
  const err = await createLedger({ dir }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  return err as ServiceError;
}

// Chaining, proofs, a reopen and refused drafts are the ledger contract's, run on the WAL and the
// database alike in test/integration/ledger-stores.test.ts; what only the WAL does is here.
describe('ledger WAL replay', () => {
  it('a reopen replays the whole WAL and says how much it read', async () => {
    const { ledger, dir } = await filled(57);
    verifyChain(ledger.recent(1000));
    await ledger.close();
    const again = await createLedger({ dir });
    expect(again.openReport).toMatchObject({ entries: 57, tornTail: null, bytes: statSync(walPath(dir)).size });
    await again.close();
  });
});

describe('ledger recovery', () => {
  it('cuts a torn tail (unterminated line, NUL bytes, garbage line) and reports it', async () => {
    for (const tail of ['{"index":12,"time":"2025-', '\0'.repeat(300), 'x1f\n\0\0\0']) {
      const { ledger, dir } = await filled(12);
      const head = ledger.head();
      await ledger.close();
      const goodSize = statSync(walPath(dir)).size;
      appendFileSync(walPath(dir), tail);
      const reopened = await createLedger({ dir });
      expect(reopened.openReport.tornTail).toMatchObject({ offset: goodSize, bytes: Buffer.byteLength(tail), line: 13 });
      expect(statSync(walPath(dir)).size).toBe(goodSize);
      expect(reopened.head()).toEqual(head);
      expect((await reopened.append(AUDIT_DRAFT)).index).toBe(12);
      verifyChain(reopened.recent(100));
      await reopened.close();
    }
  });

  it('refuses to open on corruption in the middle, naming the line', async () => {
    const { ledger, dir } = await filled(10);
    await ledger.close();
    const lines = readFileSync(walPath(dir), 'utf8').split('\n');
    const write = (ls: string[]): void => writeFileSync(walPath(dir), ls.join('\n'));
    const cases: Array<[string[], RegExp]> = [
      [lines.map((l, i) => (i === 3 ? l.replace('token-risk', 'token-rusk') : l)), /line 4 .*entrySha256/],
      [lines.map((l, i) => (i === 5 ? l.replace('"priceUsdcUnits":28000', '"priceUsdcUnits":1') : l)), /line 6/],
      [lines.filter((_, i) => i !== 2), /line 3 .*index 3 where 2/],
      [lines.map((l, i) => (i === 4 ? '{not json' : l)), /line 5 .*readable entries follow/],
      [lines.map((l, i) => (i === 7 ? l.replace('{"index":7', '{ "index":7') : l)), /line 8/],
    ];
    for (const [content, message] of cases) {
      write(content);
      const err = await openError(dir);
      expect(err.message).toMatch(message);
      expect(err.message).toMatch(/refusing to start/);
    }
    // A broken prevHash link with a self-consistent hash is caught by the link check.
    const entry7 = JSON.parse(lines[7]!) as Record<string, unknown>;
    const forged = { ...entry7, prevHash: 'f'.repeat(64) } as unknown as LedgerEntry;
    const forgedLine = JSON.stringify({ ...forged, entrySha256: entryHash(forged) });
    write(lines.map((l, i) => (i === 7 ? forgedLine : l)));
    expect((await openError(dir)).message).toMatch(/line 8 .*prevHash/);
  });
});

function countingIo(failSyncAfter = Infinity): WalIo & { syncs: number; writes: number } {
  const io = {
    syncs: 0,
    writes: 0,
    write: (fd: number, buf: Buffer, pos: number) => {
      io.writes += 1;
      return NODE_WAL_IO.write(fd, buf, pos);
    },
    sync: (fd: number) => (++io.syncs > failSyncAfter ? Promise.reject(new Error('EIO')) : NODE_WAL_IO.sync(fd)),
  };
  return io;
}

describe('group commit', () => {
  it('makes N concurrent appends durable with far fewer than N writes and fsyncs', async () => {
    const io = countingIo();
    const { ledger } = await filled(200, { io, nodeStore: 'memory' });
    expect(io.syncs).toBeLessThan(10);
    expect(io.writes).toBe(io.syncs);
    expect(ledger.stats()).toMatchObject({ appends: 200, commits: io.syncs });
    verifyChain(ledger.recent(1000));
    await ledger.close();
  });

  it('writes one fsync per append when group commit is off (benchmark reference)', async () => {
    const io = countingIo();
    const { ledger } = await filled(20, { io, groupCommit: false, nodeStore: 'memory' });
    expect(io.syncs).toBe(20);
    await ledger.close();
  });

  it('stops after a failed fsync; a restart recovers the durable prefix', async () => {
    const io = countingIo(1);
    const { ledger, dir } = await filled(5, { io, nodeStore: 'memory' });
    expect(ledger.failure()).toBeNull();
    const results = await Promise.allSettled([ledger.append(paymentDraft(5)), ledger.append(paymentDraft(6))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(ledger.append(AUDIT_DRAFT)).rejects.toThrow(/stopped until restart/);
    expect(ledger.failure()).toMatch(/ledger write failed .* stopped until restart/);
    expect(
      createTrustStatus({ ledger, killSwitch: { state: () => ({ active: false, since: null, reason: null, ledgerIndex: null }) } })().ledger,
    ).toMatchObject({ entries: 5, writable: false });
    expect(ledger.head().treeSize).toBe(5);
    await ledger.close();
    const reopened = await createLedger({ dir });
    // The failed batch's bytes may or may not be on disk; either way the chain verifies.
    expect(reopened.head().treeSize).toBeGreaterThanOrEqual(5);
    verifyChain(reopened.recent(100));
    await reopened.close();
  });
});

describe('crash', () => {
  it('keeps every acknowledged append after SIGKILL of an appending process', async () => {
    const dir = freshDir();
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../helpers/ledger-append-child.ts'), dir, '16'], {
      cwd: join(import.meta.dirname, '../../..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acked = await acksUntilKilled(child, 400 + Math.floor(Math.random() * 400));
    const ledger = await createLedger({ dir });
    const size = ledger.head().treeSize;
    expect(size).toBeGreaterThan(Math.max(...acked));
    verifyChain(ledger.recent(size));
    for (const i of acked) expect(ledger.entry(i)?.index).toBe(i);
    const p = ledger.proof(size - 1);
    expect(p.ok && verifyInclusionSpec(p.value).ok).toBe(true);
    await ledger.close();
  });
});

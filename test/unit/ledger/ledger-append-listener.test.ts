/**
 * The ledger's append hook (what feeds the live ledger panel): a listener hears every entry once
 * it is durable, in index order, with readers already seeing it; a failing listener neither fails
 * the append nor silences the others; an unsubscribed listener hears nothing more; a failed
 * write tells nobody.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { LedgerDraft, LedgerEntry } from '../../../src/ledger/ledger-entry.ts';
import { NODE_WAL_IO } from '../../../src/ledger/ledger-wal.ts';
import { createLedger } from '../../../src/ledger/ledger.ts';
import { sha256Hex } from '../../../src/ledger/merkle-hash.ts';

const root = mkdtempSync(join(tmpdir(), 'ledger-listener-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `l${dirs++}`);

const payment = (i: number): LedgerDraft => ({
  kind: 'payment',
  endpoint: '/v1/epoch',
  priceUsdcUnits: 1000,
  network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  receiptSha256: sha256Hex(`r${i}`),
});

describe('ledger onAppend', () => {
  it('tells each listener every durable entry in index order, after readers see it', async () => {
    const ledger = await createLedger({ dir: freshDir(), nodeStore: 'memory' });
    const seen: { entry: LedgerEntry; headSize: number; readBack: LedgerEntry | null }[] = [];
    ledger.onAppend((entry) => seen.push({ entry, headSize: ledger.head().treeSize, readBack: ledger.entry(entry.index) }));
    // Concurrent appends share a group commit: each still arrives on its own, in order.
    const results = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => ledger.append(payment(i))),
      ledger.append({ kind: 'audit', event: 'kill-switch.activated' }),
    ]);
    expect(seen.map((s) => s.entry.index)).toEqual(results.map((r) => r.index));
    expect(seen.map((s) => s.entry.entrySha256)).toEqual(results.map((r) => r.entrySha256));
    for (const s of seen) {
      expect(s.headSize).toBe(s.entry.index + 1);
      expect(s.readBack).toEqual(s.entry);
    }
    expect(seen.at(-1)!.entry.kind).toBe('audit');
    await ledger.close();
  });

  it('keeps appending when a listener throws, and stops telling one that unsubscribed', async () => {
    const ledger = await createLedger({ dir: freshDir(), nodeStore: 'memory' });
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const heard: number[] = [];
    const stopThrowing = ledger.onAppend(() => {
      throw new Error('listener bug');
    });
    const stop = ledger.onAppend((e) => heard.push(e.index));
    await ledger.append(payment(0));
    expect(heard).toEqual([0]);
    expect(error).toHaveBeenCalledWith(expect.stringContaining('listener bug'));
    stop();
    stopThrowing();
    await ledger.append(payment(1));
    expect(heard).toEqual([0]);
    expect(ledger.head().treeSize).toBe(2);
    error.mockRestore();
    await ledger.close();
  });

  it('tells nobody about an append whose write failed', async () => {
    let fail = false;
    const io = { write: NODE_WAL_IO.write, sync: (fd: number) => (fail ? Promise.reject(new Error('EIO')) : NODE_WAL_IO.sync(fd)) };
    const ledger = await createLedger({ dir: freshDir(), nodeStore: 'memory', io });
    const heard: number[] = [];
    ledger.onAppend((e) => heard.push(e.index));
    await ledger.append(payment(0));
    fail = true;
    await expect(ledger.append(payment(1))).rejects.toThrow(/ledger write failed/);
    expect(heard).toEqual([0]);
    await ledger.close();
  });
});
